/* fuzz_ref.c — libFuzzer target for io/ref.c: any byte string, plain or
 * gzip, must load or fail cleanly; a loaded reference must be consistent
 * (lengths, offsets, codes, ambiguity runs, contig_of, base_char).
 * Build and run: tests/fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>

#include "io/ref.h"
#include "io/log.h"
#include "mapper/score.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_write(data, size);
	sm_ref_t *ref = NULL;
	int64_t off = 0;

	sm_log_set_level(SM_LOG_QUIET);
	if (sm_ref_load(path, &ref) < 0) {
		if (ref)
			abort();
		return 0;
	}
	if (ref->n_contig <= 0)
		abort();
	for (int32_t c = 0; c < ref->n_contig; c++) {
		if (ref->len[c] <= 0 || ref->offset[c] != off || ref->name[c][0] == '\0')
			abort();
		if (sm_ref_contig_of(ref, off) != c || sm_ref_contig_of(ref, off + ref->len[c] - 1) != c)
			abort();
		off += ref->len[c];
	}
	if (off != ref->total)
		abort();
	for (int64_t i = 0; i < ref->total; i++) {
		char b = sm_ref_base_char(ref, i);
		if (ref->seq[i] > SM_BASE_N || (ref->seq[i] < SM_BASE_N) != (sm_nt4_table[(uint8_t)b] < SM_BASE_N))
			abort();
	}
	sm_ref_destroy(ref);
	return 0;
}
