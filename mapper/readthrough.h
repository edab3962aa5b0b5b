/* readthrough.h — reads that read through their insert into adapter.
 *
 * A fragment shorter than the reads is read whole by both mates, and each
 * read goes on past the fragment's far end into the library's adapter.
 * Then read 1's first I bases (I: the fragment's length) are the reverse
 * complement of read 2's first I bases, whatever the adapter is: that is
 * how this module finds such a pair, from the two reads alone (fastp's
 * overlap analysis finds adapters the same way).
 *
 * The adapter is not the genome's, yet local alignment scores every read
 * base: a read's unaligned tail leaves its best far below a perfect
 * match, so seeding cannot rule out a better locus cheaply and the read
 * ends unsure (MAPQ < 20, map_impl.h) though its fragment matches
 * perfectly.  So the mapper aligns such a pair by its fragment: each read
 * is mapped as its first I bases, and its bases past the fragment are
 * soft-clipped in the records (batch.c; --read-through, docs/cli.md).
 *
 * The test, for each fragment length I from SM_RT_MIN_FRAGMENT on that
 * leaves SM_RT_MIN_TAIL bases or more in both reads past it: the copies
 * agree (read 1's base i the complement of read 2's base I - 1 - i for
 * i < I, with at most sm_rt_max_diffs(I) differences; an N is one), and
 * the tails begin alike (the first SM_RT_TAIL_CHECK bases past I of read
 * 1 and of read 2, or as many as the shorter tail has, equal but for one
 * difference in a full window).  The two adapters of a library start
 * alike (Illumina TruSeq's both with AGATCGGAAGAGC, Nextera's with
 * CTGTCTCTTATACACATCT, MGI's with AAGTCGGA); two stretches of genome do by
 * chance about once in 30,000.  Genome can still pass both: a fragment
 * inside a repeat that is its own reverse complement ((AT)n, say) passes
 * at several lengths, so exactly one length must pass, else the reads are
 * mapped whole.  Pairs of libraries whose adapters start apart are mapped
 * whole too.  Of 663,907 ART and dwgsim pairs of longer fragments (chr20
 * and the 3 Gbp reference; benchmarks/read_through_count), one passed: a
 * tandem repeat; batch.c maps such a pair again whole when its placements
 * show no such fragment. */
#ifndef SM_READTHROUGH_H
#define SM_READTHROUGH_H

#include <stdint.h>

/* Shortest fragment looked for: the reads' overlap must be long enough
 * that chance agreement is out of the question (4^-32 for random bases
 * with no difference allowed; fastp's default is 30), and a fragment
 * shorter scores too little to place anyway (-T 30). */
#define SM_RT_MIN_FRAGMENT 32

/* Bases of the two tails compared (above), and the fewest compared: a
 * shorter tail is too little evidence (one base agrees by chance one time
 * in four), and too little adapter to cost a read its MAPQ. */
#define SM_RT_TAIL_CHECK 10
#define SM_RT_MIN_TAIL 5

/* Differences allowed between the two reads' copies of a fragment of
 * length I: sequencing errors of both reads, one in eight bases (250 bp
 * MiSeq reads, whose ends are noisy, need as many: with one in ten and at
 * most five, benchmarks/read_through_count found 18% of an ART MSv3 set's
 * read-through pairs, 98% now). */
#define SM_RT_DIFF_RATIO 8
static inline int32_t sm_rt_max_diffs(int32_t fragment)
{
	return fragment / SM_RT_DIFF_RATIO;
}

/* How far from the fragment's length the insert of a cut pair's
 * placements may be for them to show that fragment (batch.c maps a pair
 * whose placements do not again whole). */
#define SM_RT_ENDS_SLACK 10

/* The fragment length I of pair s1[0..n1), s2[0..n2) (each read's bases
 * as given, 5' to 3', IUPAC letters of either case) when the pair reads
 * through its fragment as above, else 0.  Read 1's bases past I and read
 * 2's past I are adapter. */
int32_t sm_read_through(const char *s1, int32_t n1, const char *s2, int32_t n2);

/* A single read has no mate to show where its fragment ends, so only a
 * known adapter can: the start of what a sequencer reads after the insert
 * in the common library kits (SM_RT_ADAPTERS, readthrough.c: Illumina
 * TruSeq, Nextera/Tn5 and small-RNA, MGI's two), as cutadapt and fastp
 * look for them.  The read's fragment ends at the first position I (at
 * least SM_RT_MIN_FRAGMENT) where the bases from I on are an adapter's
 * first bases: all of the adapter's that the read holds, SM_RT_AD_MIN or
 * more, with one difference allowed where SM_RT_AD_ONE_DIFF or more are
 * compared (sequencing errors; an N is one).  By chance a read of genome
 * holds one now and then (5 of the 94,345 first reads of seeded.md's seed-3
 * HiSeq 2500 pairs: benchmarks/read_through_count): batch.c maps such a
 * read again whole when the reference goes on as its "adapter" does past
 * its alignment. */
#define SM_RT_AD_MIN 10
#define SM_RT_AD_ONE_DIFF 13

/* The fragment length I of read s[0..n) (as sm_read_through takes it) when
 * an adapter starts at I as above, else 0. */
int32_t sm_adapter_start(const char *s, int32_t n);

#endif
