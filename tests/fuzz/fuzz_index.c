/* fuzz_index.c — libFuzzer target for the index loader (mapper/index.h).
 *
 * The loader checks a file's checksum and reference before its structure,
 * so raw random bytes would almost never reach the structural checks.  Half
 * the inputs (first byte even) are therefore repaired first: the header's
 * reference fields are set to those of the fixed reference below and the
 * trailing checksum recomputed, as a crafted file would be.  The other half
 * go to the loader as they are.  Whatever loads must be safe to query: every
 * key's positions lie inside the reference.  Build and run:
 * tests/fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/ref.h"
#include "mapper/index.h"
#include "io/log.h"
#include "tests/fuzz/fuzz_file.h"

/* Layout offsets of the version-2 file (index.h). */
#define FZ_PREFIX 6                      /* magic and version byte */
#define FZ_REF_LEN (FZ_PREFIX + 8)       /* int64 reference length */
#define FZ_N_CONTIG (FZ_REF_LEN + 8)     /* int32 contig count */
#define FZ_REF_SUM (FZ_N_CONTIG + 8)     /* uint64 reference checksum */
#define FZ_HEAD_END (FZ_REF_SUM + 24)    /* after n_key and n_pos */
#define FZ_SUM_BYTES 8

static sm_ref_t *fixed_ref(void)
{
	static sm_ref_t *ref;
	static const char *names[] = { "a", "b" };
	static const char *seqs[] = {
		"ACGTTGCATGCCGATAGGCTTACGATCGGATCCAGTTACGGATCAGGCTAGCTTAGCGATCGATCGGA",
		"TTGACCGATNNNACGGATTACGCATGCAGCTAGCAGGCAT",
	};

	if (!ref && sm_ref_from_strings(2, names, seqs, &ref) < 0)
		abort();
	return ref;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const sm_ref_t *ref = fixed_ref();
	uint8_t *d = malloc(size ? size : 1);
	sm_index_t *idx;

	if (!d)
		abort();
	memcpy(d, data, size);
	sm_log_set_level(SM_LOG_QUIET);
	if (size >= FZ_HEAD_END + FZ_SUM_BYTES && size > 0 && !(data[0] & 1)) {
		int64_t len = ref->total;
		int32_t n_contig = ref->n_contig;
		uint64_t rs = sm_ref_checksum(ref), sum;

		memcpy(d, "SMIDX", 5);
		d[5] = SM_INDEX_VERSION;
		memcpy(d + FZ_REF_LEN, &len, sizeof len);
		memcpy(d + FZ_N_CONTIG, &n_contig, sizeof n_contig);
		memcpy(d + FZ_REF_SUM, &rs, sizeof rs);
		sum = sm_index_checksum(d + FZ_PREFIX, size - FZ_PREFIX - FZ_SUM_BYTES);
		memcpy(d + size - FZ_SUM_BYTES, &sum, sizeof sum);
	}
	idx = sm_index_load(fuzz_file_write(d, size), ref);
	if (idx) {
		for (int64_t t = 0; t < idx->n_key; t++) {
			const int64_t *pos;
			int64_t n = sm_index_get(idx, idx->key[t], &pos);

			if (n <= 0)
				abort();
			for (int64_t i = 0; i < n; i++)
				if (pos[i] < 0 || (pos[i] >> 1) >= ref->total)
					abort();
		}
		sm_index_destroy(idx);
	}
	free(d);
	return 0;
}
