/* sam_rg.c — the -R read group line parser (see sam_out.h).  Apart from
 * the writer, so that its fuzz target links without htslib's library (it
 * uses only kstring.h's inline functions). */
#include <htslib/kstring.h>
#include <stdlib.h>
#include <string.h>

#include "io/sam_out.h"
#include "io/log.h"

int sm_rg_parse(const char *arg, char **line, char **id)
{
	kstring_t s = KS_INITIALIZE;
	const char *p;
	char *f, *end;

	*line = *id = NULL;
	/* Turn the two characters "\t" into a tab; refuse other control
	 * characters, which cannot appear in a header line. */
	for (p = arg; *p; p++) {
		if (p[0] == '\\' && p[1] == 't') {
			if (kputc('\t', &s) < 0)
				goto oom;
			p++;
		} else if ((unsigned char)*p < ' ' && *p != '\t') {
			sm_log(SM_LOG_ERROR, "-R: the read group line contains a control "
			       "character (newline?): '%s'", arg);
			goto fail;
		} else if (kputc(*p, &s) < 0) {
			goto oom;
		}
	}
	if (!s.s || strncmp(s.s, "@RG\t", 4) != 0) {
		sm_log(SM_LOG_ERROR, "-R: the read group line must start with '@RG\\t': '%s'", arg);
		goto fail;
	}
	/* Every field after @RG is TAG:VALUE with a two-character tag. */
	for (f = s.s + 4; ; f = end + 1) {
		size_t len;

		end = strchr(f, '\t');
		len = end ? (size_t)(end - f) : strlen(f);
		if (len < 4 || f[2] != ':') {
			sm_log(SM_LOG_ERROR, "-R: field '%.*s' of the read group line is not "
			       "TAG:VALUE: '%s'", (int)len, f, arg);
			goto fail;
		}
		if (f[0] == 'I' && f[1] == 'D' && !*id) {
			*id = strndup(f + 3, len - 3);
			if (!*id)
				goto oom;
		}
		if (!end)
			break;
	}
	if (!*id) {
		sm_log(SM_LOG_ERROR, "-R: the read group line has no ID field: '%s'", arg);
		goto fail;
	}
	*line = s.s;
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "out of memory parsing -R");
fail:
	free(s.s);
	free(*id);
	*id = NULL;
	return -1;
}
