/* index.h — minimizer index of a reference, for seeded mapping.
 *
 * Every contig is cut into k-mers (k <= 16 bases, no ambiguous base); of
 * each run of w consecutive k-mers the one with the smallest hash of its
 * canonical form (the lesser of the k-mer and its reverse complement) is a
 * minimizer.  The index maps a minimizer hash to its reference positions.
 *
 * File format (little-endian, written by sm_index_save), version 2:
 *   magic "SMIDX" + version byte;
 *   header: k, w (int32), reference length (int64), contig count (int32),
 *     0 (int32), a checksum of the reference's base codes and contig lengths
 *     (uint64), key count n_key and position count n_pos (int64);
 *   the sorted keys (uint32 x n_key), their offsets into the positions
 *     (int64 x n_key + 1), the positions (int64 x n_pos);
 *   sm_index_checksum() of everything from the header to the positions
 *     (uint64).
 * sm_index_load rejects, with a message naming the file, a file that is not
 * an index, of another version (version 1 had no checksum: rebuild it),
 * truncated or longer than its counts say, whose checksum does not match,
 * built from another reference, or whose structure is wrong although the
 * checksum matches (a crafted file): k or w out of range, keys not strictly
 * increasing, offsets not strictly increasing from 0 to n_pos, a key's
 * positions not increasing or outside the reference.  What it returns can
 * be looked up without bounds checks. */
#ifndef SM_INDEX_H
#define SM_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "io/hd.h"
#include "io/ref.h"

#define SM_INDEX_VERSION 2
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

typedef struct {
	int k, w;
	int64_t ref_len;
	int32_t n_contig;
	uint64_t ref_sum;
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
} sm_index_t;

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

/* Builds the index of ref in memory.  Returns NULL after logging. */
sm_index_t *sm_index_build(const sm_ref_t *ref, int k, int w);

/* Writes idx to path, under a temporary name renamed when complete
 * (io/outfile.h); returns 0 or -1 after logging (nothing is left under
 * path). */
int sm_index_save(const sm_index_t *idx, const char *path);

/* Reads an index and checks it against ref.  Returns NULL after logging. */
sm_index_t *sm_index_load(const char *path, const sm_ref_t *ref);

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
 * changes.  Exposed for tests and the loader's fuzz target. */
uint64_t sm_index_checksum(const void *data, size_t n);

/* Checksum of a reference's codes and contig lengths (FNV-1a, 64-bit). */
uint64_t sm_ref_checksum(const sm_ref_t *ref);

void sm_index_destroy(sm_index_t *idx);

#endif
