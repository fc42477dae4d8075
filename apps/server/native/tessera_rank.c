/*
** tessera_rank: an SQLite loadable extension registering the FTS5 auxiliary function
**
**   tessera_bm25(records_fts [, rows_0, rows_1, ...])
**
** which computes exactly FTS5's built-in bm25() (fts5_aux.c: k1 = 1.2, b = 0.75, every column
** weighted 1.0, the idf log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, avgdl from xRowCount and
** xColumnTotalSize, the row's length from xColumnSize, the phrase frequencies as xInst gives them), except for
** one thing: bm25() counts, for every phrase of the query, the rows containing it over the whole table
** (xQueryPhrase) before it scores the first row (at 1M records, 30-45 ms for two or three common
** words), while tessera_bm25 takes those counts from its arguments: rows_i is the number of the
** table's rows matching phrase i (the caller counts and caches them, apps/server/src/search/
** phrase-rows.ts). Without counts (one argument only) the query's phrases count as one phrase, of
** idf 1, whose instances in a row are all of theirs: for a query of one phrase that is bm25's order (its
** idf is a constant factor), on another scale; for `("t1" OR "t2" ...)`, the terms of a prefix `t*`
** (sqlite-text.ts expands long prefixes so), exactly the score of the prefix phrase (each token of the
** prefix is an instance of one of its terms). An AND of several phrases is always given their counts. With counts for
** another number of phrases than FTS5 parsed, it counts as bm25() does (same scores, bm25's cost).
**
** It also registers the scalar function
**
**   tessera_seq_in(members, first, rowid)
**
** which is 1 when the record of an FTS rowid (rowid >> 10, sqlite-text.ts' rowid = seq * 1024 + field) is in
** `members`, a bitmap blob of seqs from `first` (bit i of byte i / 8, least significant first: seq first + i),
** else 0: the caller's answered records as one blob instead of an IN list (each probe of which costs ~0.4 us
** against the ~0.07 us FTS5 takes per row read; sqlite-text-answered.ts).
**
** Built at install (apps/server/native/build.mjs) against the headers of better-sqlite3's own SQLite.
*/
#include <math.h>
#include <string.h>
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

/* Per statement (xGetAuxdata): the idf of each phrase, the table's average row length and a frequency buffer. */
typedef struct RankData {
  int nPhrase;
  double avgdl;
  double *aIDF;
  double *aFreq;
} RankData;

/* fts5CountCb: bm25()'s own count of a phrase's rows (only when the caller gave no usable counts). */
static int countRows(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUserData) {
  (void)pApi;
  (void)pFts;
  (*(sqlite3_int64 *)pUserData)++;
  return SQLITE_OK;
}

/*
** The statement's RankData, made on its first row. Each phrase's idf: 1 when no counts are given;
** from the counts when there is one per phrase; else (a caller that counted other phrases than FTS5
** parsed, say a word FTS5 drops because it has no token) from bm25()'s own count, so the score is
** still exactly bm25's. A bad count sets the error message on pCtx and *pReported.
*/
static int rankData(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal,
                    sqlite3_value **apVal, RankData **ppData, int *pReported) {
  RankData *p = (RankData *)pApi->xGetAuxdata(pFts, 0);
  int rc = SQLITE_OK;
  if (p == 0) {
    int nPhrase = pApi->xPhraseCount(pFts);
    sqlite3_int64 nRow = 0, nToken = 0;
    size_t nByte = sizeof(RankData) + (size_t)nPhrase * 2 * sizeof(double);
    int i;
    p = (RankData *)sqlite3_malloc64(nByte);
    if (p == 0) return SQLITE_NOMEM;
    memset(p, 0, nByte);
    p->nPhrase = nPhrase;
    p->aIDF = (double *)&p[1];
    p->aFreq = &p->aIDF[nPhrase];
    rc = pApi->xRowCount(pFts, &nRow);
    if (rc == SQLITE_OK) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
    if (rc == SQLITE_OK) p->avgdl = (double)nToken / (double)nRow;
    for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
      sqlite3_int64 nHit = 0;
      double idf;
      if (nVal == 0) {
        p->aIDF[i] = 1.0;
        continue;
      }
      if (nVal == nPhrase) {
        /* An integer, or a whole REAL (a JavaScript number bound by better-sqlite3). */
        int eType = sqlite3_value_numeric_type(apVal[i]);
        double d = sqlite3_value_double(apVal[i]);
        if ((eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) || !(d >= 0.0 && d <= 9.0e15) || d != floor(d)) {
          sqlite3_result_error(pCtx, "tessera_bm25: a phrase's row count must be a non-negative integer", -1);
          *pReported = 1;
          sqlite3_free(p);
          return SQLITE_ERROR;
        }
        nHit = (sqlite3_int64)d;
      } else {
        rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, countRows);
        if (rc != SQLITE_OK) break;
      }
      /* fts5Bm25GetData's arithmetic, to the letter. */
      idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
      if (idf <= 0.0) idf = 1e-6;
      p->aIDF[i] = idf;
    }
    if (rc != SQLITE_OK) {
      sqlite3_free(p);
      return rc;
    }
    rc = pApi->xSetAuxdata(pFts, p, sqlite3_free);
    if (rc != SQLITE_OK) return rc;
  }
  *ppData = p;
  return SQLITE_OK;
}

/* fts5Bm25Function with every column's weight 1.0 (bm25(records_fts) without weights). */
static void tesseraBm25(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal,
                        sqlite3_value **apVal) {
  const double k1 = 1.2;
  const double b = 0.75;
  double score = 0.0;
  double D = 0.0;
  RankData *pData = 0;
  int i;
  int reported = 0;
  int rc = rankData(pApi, pFts, pCtx, nVal, apVal, &pData, &reported);
  if (reported) return;
  /* Each phrase's instances in the row (every column weighted 1.0): what bm25 sums from xInst, counted phrase by
  ** phrase with xPhraseFirst/xPhraseNext, which read each phrase's positions without merging them into one
  ** sorted list of every phrase's instances (xInstCount). */
  for (i = 0; rc == SQLITE_OK && i < pData->nPhrase; i++) {
    Fts5PhraseIter iter;
    int iCol = 0, iOff = 0;
    double n = 0.0;
    rc = pApi->xPhraseFirst(pFts, i, &iter, &iCol, &iOff);
    while (rc == SQLITE_OK && iCol >= 0) {
      n += 1.0;
      pApi->xPhraseNext(pFts, &iter, &iCol, &iOff);
    }
    pData->aFreq[i] = n;
  }
  if (rc == SQLITE_OK) {
    int nTok;
    rc = pApi->xColumnSize(pFts, -1, &nTok);
    D = (double)nTok;
  }
  if (rc == SQLITE_OK && nVal == 0) {
    /* No counts: the phrases as one (a prefix's terms), its frequency the sum of theirs, its idf 1. */
    double f = 0.0;
    for (i = 0; i < pData->nPhrase; i++) f += pData->aFreq[i];
    score = (f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / pData->avgdl));
  } else if (rc == SQLITE_OK) {
    for (i = 0; i < pData->nPhrase; i++) {
      score += pData->aIDF[i] * ((pData->aFreq[i] * (k1 + 1.0)) / (pData->aFreq[i] + k1 * (1 - b + b * D / pData->avgdl)));
    }
  }
  if (rc == SQLITE_OK) {
    sqlite3_result_double(pCtx, -1.0 * score);
  } else {
    sqlite3_result_error_code(pCtx, rc);
  }
}

/* tessera_seq_in(members, first, rowid): whether rowid's record is in the bitmap (a NULL or short blob: not). */
static void seqIn(sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  const unsigned char *aBits = (const unsigned char *)sqlite3_value_blob(apVal[0]);
  sqlite3_int64 nBits = (sqlite3_int64)sqlite3_value_bytes(apVal[0]) * 8;
  sqlite3_int64 i = (sqlite3_value_int64(apVal[2]) >> 10) - sqlite3_value_int64(apVal[1]);
  (void)nVal;
  sqlite3_result_int(pCtx, aBits != 0 && i >= 0 && i < nBits && ((aBits[i >> 3] >> (i & 7)) & 1));
}

/* The connection's fts5_api (NULL when FTS5 is missing), as the FTS5 documentation gets it. */
static fts5_api *fts5ApiOf(sqlite3 *db) {
  fts5_api *pRet = 0;
  sqlite3_stmt *pStmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(pStmt, 1, (void *)&pRet, "fts5_api_ptr", 0);
    sqlite3_step(pStmt);
  }
  sqlite3_finalize(pStmt);
  return pRet;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_tesserarank_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  fts5_api *fts5;
  SQLITE_EXTENSION_INIT2(pApi);
  fts5 = fts5ApiOf(db);
  if (fts5 == 0 || fts5->iVersion < 2) {
    if (pzErrMsg) *pzErrMsg = sqlite3_mprintf("tessera_rank: this SQLite has no FTS5 (version 2 of its API)");
    return SQLITE_ERROR;
  }
  {
    int rc = sqlite3_create_function(db, "tessera_seq_in", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, seqIn, 0, 0);
    if (rc != SQLITE_OK) return rc;
  }
  return fts5->xCreateFunction(fts5, "tessera_bm25", 0, tesseraBm25, 0);
}
