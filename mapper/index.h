/* index.h — minimizer index of a reference, for seeded mapping.
 *
 * Every contig is cut into k-mers (k <= 16 bases, no ambiguous base); of
 * each run of w consecutive k-mers the one with the smallest hash of its
 * canonical form (the lesser of the k-mer and its reverse complement) is a
 * minimizer.  The index maps a minimizer hash to its reference positions.
 *
 * File format (little-endian), version 4: the header sm_index_head_t, then
 * the sections of enum sm_index_sec in that order, each padded with zeros
 * to a multiple of 8 bytes (sm_index_layout gives their offsets; the file
 * ends where the last one does):
 *   contig lengths (int64 x n_contig); contig names (NUL-terminated, one
 *   after another, names_len bytes); ambiguity runs (sm_index_amb_t x
 *   n_amb); the reference's base codes (uint8 x ref_len, io/ref.h); the
 *   sorted keys (uint32 x n_key); their offsets into the positions (int64 x
 *   n_key + 1); the positions ((global position << 1) | strand, int64 x
 *   n_pos).
 * The file holds all that mapping needs of the reference, so 'scanmap map'
 * maps it (mmap) instead of parsing the FASTA again.  Each section has its
 * own checksum in the header, and the header one of its own: the header's
 * and the reference sections' are sm_index_checksum() of their bytes; the
 * keys', offsets' and positions' are taken per block of a fixed number of
 * keys, so that the loader sums and checks each block in one pass
 * (index.c, "the checksum").  Version 3 had the same sections with every
 * checksum taken per 1 MiB block: it is refused (rebuild it).
 * The header records the FASTA's size and modification time: a FASTA of
 * another size is refused as another reference; one of the same size but
 * another time is read and compared base for base (a copy that did not keep
 * the time), and refused if it differs.
 *
 * sm_index_load rejects, with a message naming the file, a file that is not
 * an index, of another version (1 and 2 did not hold the reference, 3 had
 * other checksums: rebuild it), truncated or longer than its counts say, whose checksums do not
 * match, built from another reference, or whose structure is wrong although
 * the checksums match (a crafted file): k or w out of range, contig lengths
 * or names that do not add up, ambiguity runs outside the reference or
 * out of order, a base code above SM_BASE_N, keys not strictly increasing,
 * offsets not strictly increasing from 0 to n_pos, a key's positions not
 * increasing or outside the reference.  What it returns can be looked up
 * without bounds checks.
 *
 * Seeding parameters (docs/seeded.md): k = 15 and w = 10 by default, so
 * about 2 / (w + 1) of the reference's positions are minimizers; the
 * repeat cap is the mapper's --max-occ (seed.h), applied at look-up time,
 * so the index keeps every occurrence. */
#ifndef SM_INDEX_H
#define SM_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "io/hd.h"
#include "io/ref.h"

#define SM_INDEX_VERSION 4
#define SM_INDEX_DEFAULT_K 15
#define SM_INDEX_DEFAULT_W 10
#define SM_INDEX_MIN_K 4
#define SM_INDEX_MAX_K 16
#define SM_INDEX_MAX_W 255
#define SM_HASH_BITS 32      /* bits of a minimizer hash */

/* One minimizer occurrence: the global coordinate of the k-mer's last base
 * and whether the canonical form is the forward k-mer (0) or its reverse
 * complement (1). */
typedef struct {
	uint32_t hash;
	uint32_t strand;
	int64_t pos;
} sm_mini_t;

/* The sections of an index file, in file order. */
enum sm_index_sec {
	SM_SEC_LEN, SM_SEC_NAME, SM_SEC_AMB, SM_SEC_SEQ, SM_SEC_KEY, SM_SEC_START, SM_SEC_POS,
	SM_SEC_N
};

/* The file's header (the first bytes of the file, as laid out here). */
typedef struct {
	char magic[5];          /* "SMIDX" */
	uint8_t version;        /* SM_INDEX_VERSION */
	uint8_t zero[2];
	int32_t k, w;
	int64_t ref_len, n_contig, names_len, n_amb, n_key, n_pos;
	/* The FASTA's size and modification time when it was read (all 0 for
	 * a reference from memory: nothing to compare). */
	int64_t fasta_size, fasta_mtime_s, fasta_mtime_ns;
	uint64_t sum[SM_SEC_N]; /* each section's checksum (above) */
	uint64_t head_sum;      /* sm_index_checksum() of the bytes above */
} sm_index_head_t;

/* An ambiguity run in the file (sm_amb_run_t of io/ref.h). */
typedef struct {
	int64_t start;
	int32_t len;
	int32_t base;           /* uppercase IUPAC letter */
} sm_index_amb_t;

typedef struct {
	int k, w;
	int64_t ref_len;
	int32_t n_contig;
	int64_t n_key;
	uint32_t *key;      /* sorted distinct minimizer hashes */
	int64_t *start;     /* n_key + 1 offsets into pos[] */
	int64_t *pos;       /* (global position << 1) | strand, grouped by key */
	/* Direct look-up of the sorted keys by their top bucket_bits bits (not
	 * saved: built on load).  Keys with top bits b are key[bucket[b] ..
	 * bucket[b + 1]); minimizer hashes are uniform, so a bucket holds about
	 * one key and a look-up touches one or two cache lines where a binary
	 * search over key[] touches twenty.  NULL (binary search) when n_key
	 * does not fit in 32 bits. */
	uint32_t *bucket;   /* [2^bucket_bits + 1] */
	int bucket_bits;
	/* A loaded index: key, start and pos point into the file's read-only
	 * mapping of map_len bytes, which sm_index_destroy unmaps. */
	void *map;
	size_t map_len;
} sm_index_t;

#define SM_INDEX_VERIFY_STRUCTURE 2

/* How sm_index_load checks what it loads. */
typedef struct {
	/* The FASTA the index must have been built from: its size and time
	 * are compared with the header's (see above).  NULL, or a path that
	 * does not exist, skips the comparison (the index's own reference is
	 * used; a missing FASTA is noted at level INFO). */
	const char *fasta_path;
	int n_threads;          /* threads for the checks (>= 1) */
	/* 1 (the default): every check; 0 skips the checksums and structural
	 * checks, SM_INDEX_VERIFY_STRUCTURE the checksums alone (benchmarks
	 * only, to measure what the checks cost: a damaged file is then used
	 * as it is). */
	int verify;
	/* 1 runs the load pass's portable loop even on a CPU with AVX2 (for
	 * tests: both give the same sums). */
	int portable;
} sm_index_load_opt_t;

void sm_index_load_opt_init(sm_index_load_opt_t *o);

/* Thomas Wang's invertible 64-bit mix of a k-mer's code: spreads k-mers
 * evenly, so that low-complexity ones (poly-A) are not always the
 * minimizers.  A minimizer's hash is its low 32 bits. */
SM_HD static inline uint64_t sm_mix64(uint64_t key)
{
	key = (~key) + (key << 21);
	key ^= key >> 24;
	key = (key + (key << 3)) + (key << 8);
	key ^= key >> 14;
	key = (key + (key << 2)) + (key << 4);
	key ^= key >> 28;
	key += key << 31;
	return key;
}

/* Minimizers of seq[0..len) (base codes), in order of position; positions
 * are relative to seq.  With w = 1 every k-mer is returned (a read's k-mers
 * are all looked up, so that an error that changes which k-mer of a window
 * is the minimizer cannot hide the reference's minimizer).  *out is grown
 * with realloc; returns the count or -1 when out of memory. */
int64_t sm_minimizers(const uint8_t *seq, int64_t len, int k, int w,
		      sm_mini_t **out, int64_t *cap);

/* Builds the index of ref in memory with n_threads threads (the result
 * does not depend on their number); progress = 1 logs each stage at level
 * INFO.  Peak memory beyond ref: 8 bytes per minimizer occurrence, 12 per
 * distinct minimizer, and one bucket of the sort per thread.  Returns NULL
 * after logging. */
sm_index_t *sm_index_build(const sm_ref_t *ref, int k, int w, int n_threads, int progress);

/* Writes idx and its reference ref (the one it was built from) to path,
 * under a temporary name renamed when complete (io/outfile.h), with
 * n_threads threads for the checksums; returns 0 or -1 after logging
 * (nothing is left under path). */
int sm_index_save(const sm_index_t *idx, const sm_ref_t *ref, const char *path, int n_threads);

/* Maps an index file and checks it (opt: see sm_index_load_opt_t; NULL for
 * the defaults, without a FASTA to compare).  When ref is not NULL, *ref is
 * set to the reference the index holds (free with sm_ref_destroy; its
 * bases are the index's mapping: use it only while idx lives).  Returns
 * NULL after logging. */
sm_index_t *sm_index_load(const char *path, const sm_index_load_opt_t *opt, sm_ref_t **ref);

/* The byte offset of each section of a file with header h into off[0..
 * SM_SEC_N), and where the file ends into off[SM_SEC_N].  Returns 0, or -1
 * when a count is negative or the sizes overflow. */
int sm_index_layout(const sm_index_head_t *h, int64_t off[SM_SEC_N + 1]);

/* Recomputes the checksums of the index file image data[0..n) whose header
 * counts describe n bytes, as a crafted file would: for tests and the
 * loader's fuzz target.  Returns 0, or -1 when they do not. */
int sm_index_seal(uint8_t *data, size_t n);

/* Where hash h is in the sorted key[0..n_key), -1 if absent: through the
 * bucket table (bucket_bits top bits) when bucket is not NULL, else by
 * binary search.  Inline for the GPU seeder, which looks keys up the same
 * way. */
SM_HD static inline int64_t sm_index_slot(const uint32_t *key, int64_t n_key,
					  const uint32_t *bucket, int bucket_bits, uint32_t h)
{
	int64_t lo = 0, hi = n_key;

	if (bucket) {
		uint32_t b = h >> (SM_HASH_BITS - bucket_bits);

		for (lo = bucket[b], hi = bucket[b + 1]; lo < hi && key[lo] < h; lo++)
			;
	} else {
		for (int64_t r = n_key; lo < r;) {
			int64_t mid = lo + (r - lo) / 2;

			if (key[mid] < h)
				lo = mid + 1;
			else
				r = mid;
		}
	}
	return lo < hi && key[lo] == h ? lo : -1;
}

/* Positions of hash h: sets *pos and returns their count (0 if absent). */
int64_t sm_index_get(const sm_index_t *idx, uint32_t h, const int64_t **pos);

/* sm_index_get() for the hashes of m[0..n): occ[t] and pos[t] as it sets
 * them for m[t].hash (pos[t] unset when occ[t] is 0).  The look-ups of all
 * the hashes run stage by stage with every stage's memory prefetched, so
 * their cache misses overlap instead of following one another. */
void sm_index_get_many(const sm_index_t *idx, int64_t n, const sm_mini_t *m, int64_t *occ,
		       const int64_t **pos);

/* The index file's checksum of data[0..n) (see the file format above): a
 * fast 64-bit hash that any change confined to one 8-byte word always
 * changes, computed per block of 1 MiB so that threads can share it.  The
 * key, offset and position sections are summed with the same chains but
 * per block of keys (index.c). */
uint64_t sm_index_checksum(const void *data, size_t n);

void sm_index_destroy(sm_index_t *idx);

/* REF.smi, the index file of the reference at ref_path, in a new string
 * (free() it), or NULL when out of memory (logged). */
char *sm_index_path(const char *ref_path);

#endif
