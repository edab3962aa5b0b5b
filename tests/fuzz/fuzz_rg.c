/* fuzz_rg.c — libFuzzer target for sm_rg_parse (io/sam_out.h, the -R
 * argument): any string is parsed or refused, never crashes or leaks; a
 * parsed line starts with "@RG\t", holds no control character but tabs,
 * and its ID is one of its fields.  Build and run: tests/fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/sam_out.h"
#include "io/log.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *arg = malloc(size + 1), *line = NULL, *id = NULL, *field;

	if (!arg)
		abort();
	memcpy(arg, data, size);
	arg[size] = '\0';   /* an argv string ends at its first NUL */
	sm_log_set_level(SM_LOG_QUIET);
	if (sm_rg_parse(arg, &line, &id) == 0) {
		if (!line || !id || strncmp(line, "@RG\t", 4) != 0)
			abort();
		for (const char *p = line; *p; p++)
			if ((unsigned char)*p < ' ' && *p != '\t')
				abort();
		field = malloc(strlen(id) + 5);
		if (!field)
			abort();
		strcpy(field, "\tID:");
		strcat(field, id);
		if (!strstr(line, field))
			abort();
		free(field);
	} else if (line || id) {
		abort();
	}
	free(line);
	free(id);
	free(arg);
	return 0;
}
