/*
 * lexical: BM25 over per-row term lists. See lexical.h.
 *
 * Two passes over the pool: document frequencies and lengths, then scores.
 * The pool is a few tens of thousands of words and a query a handful of
 * terms, so a pass costs well under a millisecond on a PC and a few on the
 * device's core, and needs no inverted index in RAM beyond the term lists.
 */
#include <math.h>
#include "lexical.h"

#define LEXICAL_MAX_QUERY 32u

/* Insert (idx, score) into the buffer of count entries sorted by score
 * descending (ties: lower index first; idx is the highest seen so far). */
static size_t lexical_insert(int32_t *outIdx, float *outScore, size_t count,
                             size_t k, int32_t idx, float score)
{
	size_t j = count < k ? count : k - 1;
	while (j > 0 && outScore[j - 1] < score) {
		outScore[j] = outScore[j - 1];
		outIdx[j] = outIdx[j - 1];
		j--;
	}
	outScore[j] = score;
	outIdx[j] = idx;
	return count < k ? count + 1 : k;
}

size_t lexical_bm25(const uint32_t *pool, const uint32_t *off, const uint16_t *len,
                    const uint16_t *dl, size_t rows, const float *mask,
                    const uint32_t *query, size_t nq, double k1, double b,
                    float *scores, double *idf, size_t k, int32_t *outIdx,
                    float *outScore)
{
	uint32_t df[LEXICAL_MAX_QUERY];
	double n = 0.0, sumdl = 0.0, avgdl;
	size_t r, q, j, count = 0;

	if (nq > LEXICAL_MAX_QUERY)
		nq = LEXICAL_MAX_QUERY;
	for (q = 0; q < nq; q++)
		df[q] = 0;
	for (r = 0; r < rows; r++) {
		const uint32_t *t = pool + off[r];
		size_t m = len[r];
		if (mask[r] == 0.0f)
			continue;
		n += 1.0;
		sumdl += (double)dl[r];
		for (j = 0; j < m; j++) {
			uint32_t h = t[j] & ~LEXICAL_TF_MASK;
			for (q = 0; q < nq; q++)
				if (h == query[q])
					df[q]++;
		}
	}
	for (q = 0; q < nq; q++)
		idf[q] = n > 0.0 ? log(1.0 + (n - (double)df[q] + 0.5) / ((double)df[q] + 0.5)) : 0.0;
	avgdl = n > 0.0 ? sumdl / n : 0.0;
	for (r = 0; r < rows; r++) {
		const uint32_t *t = pool + off[r];
		size_t m = len[r];
		double s = 0.0, norm;
		float f;
		scores[r] = 0.0f;
		if (mask[r] == 0.0f || avgdl == 0.0)
			continue;
		norm = k1 * (1.0 - b + b * (double)dl[r] / avgdl);
		for (j = 0; j < m; j++) {
			uint32_t h = t[j] & ~LEXICAL_TF_MASK;
			double tf = (double)(t[j] & LEXICAL_TF_MASK);
			for (q = 0; q < nq; q++)
				if (h == query[q])
					s += idf[q] * tf * (k1 + 1.0) / (tf + norm);
		}
		f = (float)s;
		scores[r] = f;
		if (!(f > 0.0f) || k == 0)
			continue;
		if (count == k && !(f > outScore[k - 1]))
			continue;
		count = lexical_insert(outIdx, outScore, count, k, (int32_t)r, f);
	}
	return count;
}
