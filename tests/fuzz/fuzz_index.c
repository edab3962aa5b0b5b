/* fuzz_index.c — libFuzzer target for the index loader (mapper/index.h).
 *
 * The loader checks a file's checksums before its structure, so raw random
 * bytes would almost never reach the structural checks.  Half the inputs
 * (first byte even) are therefore repaired first: magic and version set and
 * the checksums recomputed (sm_index_seal), as a crafted file would be.
 * The other half go to the loader as they are.  Whatever loads must be safe
 * to query: every key's positions lie inside the reference the index holds,
 * whose contigs add up to its length.  Build and run: tests/fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/ref.h"
#include "mapper/index.h"
#include "io/log.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *d = malloc(size ? size : 1);
	sm_index_t *idx;
	sm_ref_t *ref = NULL;

	if (!d)
		abort();
	memcpy(d, data, size);
	sm_log_set_level(SM_LOG_QUIET);
	if (size >= sizeof(sm_index_head_t) && !(data[0] & 1)) {
		memcpy(d, "SMIDX", 5);
		d[5] = SM_INDEX_VERSION;
		sm_index_seal(d, size);
	}
	idx = sm_index_load(fuzz_file_write(d, size), NULL, &ref);
	if (idx) {
		int64_t total = 0;

		for (int32_t c = 0; c < ref->n_contig; c++)
			total += ref->len[c];
		if (total != ref->total || ref->offset[ref->n_contig - 1] + ref->len[ref->n_contig - 1] !=
		    ref->total)
			abort();
		for (int64_t i = 0; i < ref->total; i++)
			if (ref->seq[i] > 4)
				abort();
		for (int64_t t = 0; t < idx->n_key; t++) {
			const int64_t *pos;
			int64_t n = sm_index_get(idx, idx->key[t], &pos);

			if (n <= 0)
				abort();
			for (int64_t i = 0; i < n; i++)
				if (pos[i] < 0 || (pos[i] >> 1) >= ref->total)
					abort();
		}
		sm_ref_destroy(ref);
		sm_index_destroy(idx);
	}
	free(d);
	return 0;
}
