/*
 * lexical: BM25 over a packed pool of per-row term lists (the memory store's
 * lexical ranking, src/memory/lexicon.ts).
 *
 * Portable C99, no XS, no allocation. Results are bit for bit those of the
 * TypeScript fallback in lexical.ts:
 *  - a row r takes part when mask[r] != 0; its terms are
 *    pool[off[r] .. off[r] + len[r]), each a term hash with the low 3 bits
 *    holding the term's count in the row (1-7, saturated); dl[r] is the row's
 *    length in terms (counts not saturated);
 *  - N = rows taking part, avgdl = sum(dl) / N (as doubles);
 *  - df[q] = rows taking part that hold query term q (query[q], low 3 bits 0);
 *    idf[q] = log(1 + (N - df + 0.5) / (df + 0.5));
 *  - score(r) = the sum, over r's terms j in pool order and the query terms q
 *    in order that match j, of idf[q] * tf * (k1 + 1) / (tf + k1 * (1 - b +
 *    b * dl[r] / avgdl)), every operation a double operation; stored as float;
 *  - scores[r] is written for every r < rows (0 for rows not taking part);
 *    the k best rows with a score > 0 go to outIdx/outScore, score
 *    descending, ties by lower row.
 */
#ifndef LEXICAL_H
#define LEXICAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LEXICAL_TF_BITS 3u
#define LEXICAL_TF_MASK 7u

/* Returns the number of rows written to outIdx/outScore (at most k). */
size_t lexical_bm25(const uint32_t *pool, const uint32_t *off, const uint16_t *len,
                    const uint16_t *dl, size_t rows, const float *mask,
                    const uint32_t *query, size_t nq, double k1, double b,
                    float *scores, double *idf, size_t k, int32_t *outIdx,
                    float *outScore);

#ifdef __cplusplus
}
#endif

#endif /* LEXICAL_H */
