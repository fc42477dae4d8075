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
#include <stdlib.h>
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

/*
** The current row's score (what tesseraBm25 returns): bm25 with the statement's idfs, or (nCounts == 0) the phrases
** as one phrase of idf 1. nLength: the row's length in tokens, or -1 for FTS5's xColumnSize. fts5Bm25Function with every column's weight 1.0 (bm25(records_fts) without weights).
*/
static int rowScore(const Fts5ExtensionApi *pApi, Fts5Context *pFts, RankData *pData, int nCounts, sqlite3_int64 nLength,
                    double *pScore) {
  const double k1 = 1.2;
  const double b = 0.75;
  double score = 0.0;
  double D = 0.0;
  int i;
  int rc = SQLITE_OK;
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
  if (rc == SQLITE_OK && nLength >= 0) {
    D = (double)nLength;
  } else if (rc == SQLITE_OK) {
    int nTok;
    rc = pApi->xColumnSize(pFts, -1, &nTok);
    D = (double)nTok;
  }
  if (rc == SQLITE_OK && nCounts == 0) {
    /* No counts: the phrases as one (a prefix's terms), its frequency the sum of theirs, its idf 1. */
    double f = 0.0;
    for (i = 0; i < pData->nPhrase; i++) f += pData->aFreq[i];
    score = (f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / pData->avgdl));
  } else if (rc == SQLITE_OK) {
    for (i = 0; i < pData->nPhrase; i++) {
      score += pData->aIDF[i] * ((pData->aFreq[i] * (k1 + 1.0)) / (pData->aFreq[i] + k1 * (1 - b + b * D / pData->avgdl)));
    }
  }
  *pScore = -1.0 * score;
  return rc;
}

static void tesseraBm25(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal,
                        sqlite3_value **apVal) {
  RankData *pData = 0;
  double score = 0.0;
  int reported = 0;
  int rc = rankData(pApi, pFts, pCtx, nVal, apVal, &pData, &reported);
  if (reported) return;
  if (rc == SQLITE_OK) rc = rowScore(pApi, pFts, pData, nVal, -1, &score);
  if (rc == SQLITE_OK) {
    sqlite3_result_double(pCtx, score);
  } else {
    sqlite3_result_error_code(pCtx, rc);
  }
}

/*
** The windows of a query's order (apps/server/src/search/text-window.ts' rankWindows, to the letter), read in C:
**
**   SELECT 1 FROM records_fts WHERE records_fts MATCH ? AND <rowid range>
**     AND tessera_window(records_fts, k, window, lo, prefixWanted, generation, from, width [, rows_0, rows_1, ...]) LIMIT 1
**   SELECT tessera_window_result()
**
** tessera_window takes the statement's rows in rowid order, scores those of the windows read with tessera_bm25's score
** (the same arguments after the first seven; `generation`: lengthOf) and keeps every row of each whole window read, in
** the window's order, until at least k rows are kept; it is 1 on the first row past the windows wanted (LIMIT 1 ends the
** statement there), else 0. Rows of records before `from` (a seq) are read (their seqs listed: the windows' width, a
** bounded total's walk) but neither scored nor kept: no record of the caller's queue lies before it (a team's completed
** head). `width` > 0: the windows' width known (the statement starts at a window's first record: the windows after those
** read before), else set by the (window + 1)-th record. tessera_window_result() then answers the windows as a blob and
** forgets them. Read in JavaScript, every row cost a row array, an iterator step and a call of a JavaScript function
** (~0.6 us a row of the ~2.5 us a row of a window at 1M records, session 15's profile).
** The state is the connection's (one statement at a time: the read threads' and the request thread's are their own).
*/
typedef struct WinRow {
  sqlite3_int64 rowid;
  double bm;
} WinRow;

typedef struct WindowState {
  sqlite3_int64 k, window, lo, prefixWanted, gen, from;
  WinRow *aKept; /* the rows of the windows read, in order */
  sqlite3_int64 nKept, aKeptSize;
  WinRow *aWin; /* the rows of the window being read */
  sqlite3_int64 nWin, aWinSize;
  unsigned int *aSeq; /* the distinct seqs read, in order */
  sqlite3_int64 nSeq, aSeqSize;
  sqlite3_int64 width, current, read;
  int done;  /* stopped at the first row past the windows wanted */
  int error; /* out of memory: the result is an error */
  /* The rows' lengths (docsizeLength): a cursor over records_fts_docsize, kept open while a statement reads its windows. */
  sqlite3_stmt *pDocsize;
  /* Rows' lengths kept between statements at one index version (generation; lengthOf), allocated on first use. */
  sqlite3_int64 lengthsGen;
  sqlite3_int64 *aLengthKey; /* rowid + 1, 0 for an empty slot */
  int *aLength;
  sqlite3_int64 nLengths;
  int docsizeFailed;       /* the statement could not be prepared (no fts.records_fts_docsize): xColumnSize */
  int docsizeRow;          /* the cursor is on a row (docsizeId) */
  sqlite3_int64 docsizeId;
  /* tessera_answered, since the last tessera_answered_result(): its arguments, the candidates' records counted and the best
  ** `ansK` of them kept (a max-heap on the order's key), the record being read and its best row so far. */
  int ansStarted, ansHaveBest;
  sqlite3_int64 ansK, ansLo, ansWidth, ansRecords, ansRead, ansSeq;
  struct AnsRow {
    sqlite3_int64 win, rowid;
    double bm;
  } ansBest, *aAnsTop;
  sqlite3_int64 nAnsTop, aAnsTopSize;
  /* ansCollect (k of at least ANS_COLLECT_MIN: a plain word's deep read): aAnsTop holds every record's best row in the
  ** order read instead of a heap, cut to the k best now and then (ansSelect); ansOrdered: that order is rowid order. */
  int ansCollect, ansOrdered;
  /* Every row's length of the seqs fullLo..fullHi at generation fullGen (tessera_lengths_load), those before fullNext
  ** loaded: aFullStart[seq - fullLo] is the first of the seq's rows in aFullField / aFullLen (FULL_UNKNOWN: not kept). */
  sqlite3_int64 fullGen, fullLo, fullHi, fullNext;
  unsigned int *aFullStart;
  unsigned short *aFullField, *aFullLen;
  sqlite3_int64 nFull, aFullSize;
} WindowState;

/* (bm, rowid) ascending: the order's order within a window. */
static int winLess(const WinRow *a, const WinRow *b) {
  return a->bm < b->bm || (a->bm == b->bm && a->rowid < b->rowid);
}
static int winCompare(const void *a, const void *b) {
  const WinRow *x = (const WinRow *)a, *y = (const WinRow *)b;
  return winLess(x, y) ? -1 : winLess(y, x) ? 1 : 0;
}

/* Grows *pa (of *pSize elements of nElem bytes) to hold at least n: 0 when out of memory. */
static int grow(void **pa, sqlite3_int64 *pSize, sqlite3_int64 n, size_t nElem) {
  sqlite3_int64 size = *pSize;
  void *p;
  if (n <= size) return 1;
  while (size < n) size = size ? size * 2 : 256;
  p = sqlite3_realloc64(*pa, (sqlite3_uint64)size * nElem);
  if (p == 0) return 0;
  *pa = p;
  *pSize = size;
  return 1;
}

/* A whole window read: its rows sorted (the window's order) and appended to aKept; the next window started. */
static int endWindow(WindowState *p) {
  sqlite3_int64 n = p->nWin;
  if (n > 0) {
    qsort(p->aWin, (size_t)n, sizeof(WinRow), winCompare);
    if (!grow((void **)&p->aKept, &p->aKeptSize, p->nKept + n, sizeof(WinRow))) return 0;
    memcpy(&p->aKept[p->nKept], p->aWin, (size_t)n * sizeof(WinRow));
    p->nKept += n;
  }
  p->nWin = 0;
  return 1;
}

/* floor(a / b) for b > 0 (JavaScript's Math.floor of the quotient, which C's division truncates towards zero). */
static sqlite3_int64 floorDiv(sqlite3_int64 a, sqlite3_int64 b) {
  sqlite3_int64 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

static void windowReset(WindowState *p) {
  p->nKept = p->nWin = p->nSeq = 0;
  p->width = p->current = p->read = 0;
  p->done = p->error = 0;
  /* Not kept between statements: a prepared statement left would keep the connection from closing. */
  sqlite3_finalize(p->pDocsize);
  p->pDocsize = 0;
  p->docsizeFailed = p->docsizeRow = 0;
}

/* A seek costs about as much as stepping over this many records' rows (~2 a record): nearer rows are stepped to. */
#define DOCSIZE_STEP_SEQS 4

/* sqlite3GetVarint's format (FTS5's docsize blobs): *pn is the value, the bytes read are returned (0: past the end). */
static int getVarint(const unsigned char *a, int n, sqlite3_uint64 *pv) {
  sqlite3_uint64 v = 0;
  int i;
  for (i = 0; i < 8 && i < n; i++) {
    v = (v << 7) | (a[i] & 0x7f);
    if ((a[i] & 0x80) == 0) {
      *pv = v;
      return i + 1;
    }
  }
  if (i == 8 && n > 8) {
    *pv = (v << 8) | a[8];
    return 9;
  }
  return 0;
}

/*
** The row's length in tokens, all columns (FTS5's xColumnSize(-1): the sum of its records_fts_docsize row), or -1 (the
** caller asks xColumnSize). xColumnSize seeks the docsize table from its root for every row (a statement reset each
** time: ~17% of a phrase search's CPU at 1M records, session 15's profile); the windows read rows in rowid order, so
** one cursor, open while a statement reads its windows, steps from row to row and seeks only past a gap. The table is the store's (`fts` is where the
** server attaches the index: search/text-index.ts); elsewhere the statement does not prepare and xColumnSize answers.
*/
static sqlite3_int64 docsizeLength(WindowState *p, sqlite3 *db, sqlite3_int64 rowid) {
  const unsigned char *a;
  int n, i;
  sqlite3_int64 total = 0;
  if (p->pDocsize == 0) {
    if (p->docsizeFailed) return -1;
    if (sqlite3_prepare_v2(db, "SELECT id, sz FROM fts.records_fts_docsize WHERE id >= ?1 ORDER BY id", -1, &p->pDocsize, 0) !=
        SQLITE_OK) {
      sqlite3_finalize(p->pDocsize);
      p->pDocsize = 0;
      p->docsizeFailed = 1;
      return -1;
    }
    p->docsizeRow = 0;
  }
  if (!(p->docsizeRow && p->docsizeId <= rowid && (rowid >> 10) - (p->docsizeId >> 10) <= DOCSIZE_STEP_SEQS)) {
    sqlite3_reset(p->pDocsize);
    sqlite3_bind_int64(p->pDocsize, 1, rowid);
    p->docsizeRow = 0;
    if (sqlite3_step(p->pDocsize) != SQLITE_ROW) return -1;
    p->docsizeRow = 1;
    p->docsizeId = sqlite3_column_int64(p->pDocsize, 0);
  }
  while (p->docsizeId < rowid) {
    if (sqlite3_step(p->pDocsize) != SQLITE_ROW) {
      p->docsizeRow = 0;
      return -1;
    }
    p->docsizeId = sqlite3_column_int64(p->pDocsize, 0);
  }
  if (p->docsizeId != rowid) return -1;
  a = (const unsigned char *)sqlite3_column_blob(p->pDocsize, 1);
  n = sqlite3_column_bytes(p->pDocsize, 1);
  for (i = 0; i < n;) {
    sqlite3_uint64 v;
    int m = getVarint(&a[i], n - i, &v);
    if (m == 0) return -1;
    total += (sqlite3_int64)v;
    i += m;
  }
  return total;
}

/*
** Rows' lengths kept between statements (LENGTH_SLOTS: 12 MB a connection, half of them filled at most): every query's
** windows start at its dataset's first record, so the next query reads mostly the same rows' lengths again (~0.3 us a
** row through the docsize cursor against ~0.02 from here). `gen` names the index version they are those of (the
** caller's: a job's read transaction); another one empties them first; 0 keeps none.
*/
#define LENGTH_SLOTS (1 << 20)
/* tessera_window's arguments before the phrases' row counts. */
#define WINDOW_ARGS 7

static sqlite3_int64 *lengthSlot(WindowState *p, sqlite3_int64 rowid) {
  sqlite3_uint64 h = ((sqlite3_uint64)rowid * 0x9E3779B97F4A7C15ull) >> 44; /* 20 bits */
  while (p->aLengthKey[h] != 0 && p->aLengthKey[h] != rowid + 1) h = (h + 1) & (LENGTH_SLOTS - 1);
  return &p->aLengthKey[h];
}

/* A length of at least this (or a blob that does not decode) is not kept in the table of every row's length. */
#define FULL_UNKNOWN 0xFFFF

/* The row's length from the table of every row's length (tessera_lengths_load) at `gen`, or -2 when it is not there. */
static sqlite3_int64 fullLength(WindowState *p, sqlite3_int64 rowid, sqlite3_int64 gen) {
  sqlite3_int64 seq = rowid >> 10, i, end;
  unsigned int field = (unsigned int)(rowid & 1023);
  if (gen <= 0 || p->fullGen != gen || seq < p->fullLo || seq >= p->fullNext) return -2;
  end = p->aFullStart[seq - p->fullLo + 1];
  for (i = p->aFullStart[seq - p->fullLo]; i < end; i++) {
    if (p->aFullField[i] == field) return p->aFullLen[i] == FULL_UNKNOWN ? -2 : (sqlite3_int64)p->aFullLen[i];
  }
  return -2;
}

static sqlite3_int64 lengthOf(WindowState *p, sqlite3 *db, sqlite3_int64 rowid, sqlite3_int64 gen) {
  sqlite3_int64 *pKey, n;
  n = fullLength(p, rowid, gen);
  if (n >= 0) return n;
  if (gen <= 0) return docsizeLength(p, db, rowid);
  if (p->aLengthKey == 0) {
    p->aLengthKey = (sqlite3_int64 *)sqlite3_malloc64((sqlite3_uint64)LENGTH_SLOTS * sizeof(sqlite3_int64));
    p->aLength = (int *)sqlite3_malloc64((sqlite3_uint64)LENGTH_SLOTS * sizeof(int));
    if (p->aLengthKey == 0 || p->aLength == 0) {
      sqlite3_free(p->aLengthKey);
      sqlite3_free(p->aLength);
      p->aLengthKey = 0;
      p->aLength = 0;
      return docsizeLength(p, db, rowid);
    }
    p->lengthsGen = 0;
  }
  if (p->lengthsGen != gen) {
    memset(p->aLengthKey, 0, (size_t)LENGTH_SLOTS * sizeof(sqlite3_int64));
    p->nLengths = 0;
    p->lengthsGen = gen;
  }
  pKey = lengthSlot(p, rowid);
  if (*pKey != 0) return p->aLength[pKey - p->aLengthKey];
  n = docsizeLength(p, db, rowid);
  if (n >= 0 && n <= 0x7fffffff && p->nLengths < LENGTH_SLOTS / 2) {
    *pKey = rowid + 1;
    p->aLength[pKey - p->aLengthKey] = (int)n;
    p->nLengths++;
  }
  return n;
}

static void windowFree(void *pArg) {
  WindowState *p = (WindowState *)pArg;
  sqlite3_free(p->aFullStart);
  sqlite3_free(p->aFullField);
  sqlite3_free(p->aFullLen);
  sqlite3_free(p->aLengthKey);
  sqlite3_free(p->aLength);
  sqlite3_finalize(p->pDocsize);
  sqlite3_free(p->aKept);
  sqlite3_free(p->aWin);
  sqlite3_free(p->aSeq);
  sqlite3_free(p->aAnsTop);
  sqlite3_free(p);
}

/* The window arguments (k, window, lo, prefixWanted, generation, from, width): integers, k and window at least 1. */
static int windowArgs(sqlite3_value **apVal, sqlite3_int64 *a) {
  int i;
  for (i = 0; i < WINDOW_ARGS; i++) {
    int eType = sqlite3_value_numeric_type(apVal[i]);
    double d = sqlite3_value_double(apVal[i]);
    if ((eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) || !(d >= 0.0 && d <= 9.0e15) || d != floor(d)) return 0;
    a[i] = (sqlite3_int64)d;
  }
  return a[0] >= 1 && a[1] >= 1;
}

static void tesseraWindow(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal,
                          sqlite3_value **apVal) {
  WindowState *p = (WindowState *)pApi->xUserData(pFts);
  RankData *pData = (RankData *)pApi->xGetAuxdata(pFts, 0);
  sqlite3_int64 rowid, seq;
  double score = 0.0;
  int rc = SQLITE_OK;
  if (nVal < WINDOW_ARGS) {
    sqlite3_result_error(pCtx, "tessera_window: k, window, lo, prefixWanted, generation, from and width are required", -1);
    return;
  }
  if (pData == 0) {
    /* The statement's first row: the windows start over. */
    sqlite3_int64 a[WINDOW_ARGS];
    int reported = 0;
    if (!windowArgs(apVal, a)) {
      sqlite3_result_error(pCtx,
                           "tessera_window: k, window, lo, prefixWanted, generation, from and width must be non-negative integers (k, window > 0)",
                           -1);
      return;
    }
    windowReset(p);
    p->k = a[0];
    p->window = a[1];
    p->lo = a[2];
    p->prefixWanted = a[3];
    p->gen = a[4];
    p->from = a[5];
    p->width = a[6];
    rc = rankData(pApi, pFts, pCtx, nVal - WINDOW_ARGS, apVal + WINDOW_ARGS, &pData, &reported);
    if (reported) return;
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(pCtx, rc);
      return;
    }
  }
  if (p->done) {
    /* Past the windows (a caller without LIMIT 1): nothing more is read. */
    sqlite3_result_int(pCtx, 1);
    return;
  }
  rowid = pApi->xRowid(pFts);
  p->read++;
  seq = rowid >> 10;
  if (p->nSeq == 0 || p->aSeq[p->nSeq - 1] != (unsigned int)seq) {
    sqlite3_int64 win;
    if (!grow((void **)&p->aSeq, &p->aSeqSize, p->nSeq + 1, sizeof(unsigned int))) goto nomem;
    p->aSeq[p->nSeq++] = (unsigned int)seq;
    /* The (window + 1)-th matching record starts the second window and sets the windows' width. */
    if (p->width == 0 && p->nSeq == p->window + 1) p->width = seq - p->lo;
    win = p->width == 0 ? 0 : floorDiv(seq - p->lo, p->width);
    /* The first record read: its window is the first read (a later one when the width was given). */
    if (p->nSeq == 1) p->current = win;
    else if (win != p->current) {
      /* The window is whole: ordered; stop once it holds the k-th row (this record is the next one in record order). */
      if (!endWindow(p)) goto nomem;
      p->current = win;
      if (p->nKept >= p->k && p->nSeq > p->prefixWanted) {
        p->done = 1;
        sqlite3_result_int(pCtx, 1);
        return;
      }
    }
  }
  if (seq < p->from) {
    /* Before the caller's first queue record: listed, not scored. */
    sqlite3_result_int(pCtx, 0);
    return;
  }
  rc = rowScore(pApi, pFts, pData, nVal - WINDOW_ARGS, lengthOf(p, sqlite3_context_db_handle(pCtx), rowid, p->gen), &score);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(pCtx, rc);
    return;
  }
  if (!grow((void **)&p->aWin, &p->aWinSize, p->nWin + 1, sizeof(WinRow))) goto nomem;
  p->aWin[p->nWin].rowid = rowid;
  p->aWin[p->nWin].bm = score;
  p->nWin++;
  sqlite3_result_int(pCtx, 0);
  return;
nomem:
  p->error = 1;
  sqlite3_result_error_nomem(pCtx);
}

/*
** tessera_window_result(): the windows read by the last tessera_window statement as a blob of doubles: nKept, nSeq,
** width, read (rows of the statement, scored or not), exhausted (1: every row of the statement read), next (the seq
** where the window after those read starts, -1 when exhausted), then nKept rowids, nKept scores, nSeq seqs; forgets them.
** No statement (no matching row): none kept, exhausted.
*/
static void windowResult(sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  WindowState *p = (WindowState *)sqlite3_user_data(pCtx);
  sqlite3_int64 nOut, i;
  double *aOut;
  (void)nVal;
  (void)apVal;
  if (p->error) {
    windowReset(p);
    sqlite3_result_error_nomem(pCtx);
    return;
  }
  if (!p->done && !endWindow(p)) {
    windowReset(p);
    sqlite3_result_error_nomem(pCtx);
    return;
  }
  nOut = 6 + 2 * p->nKept + p->nSeq;
  aOut = (double *)sqlite3_malloc64((sqlite3_uint64)nOut * sizeof(double));
  if (aOut == 0) {
    windowReset(p);
    sqlite3_result_error_nomem(pCtx);
    return;
  }
  aOut[0] = (double)p->nKept;
  aOut[1] = (double)p->nSeq;
  aOut[2] = (double)p->width;
  aOut[3] = (double)p->read;
  aOut[4] = p->done ? 0.0 : 1.0;
  aOut[5] = p->done ? (double)(p->lo + p->current * p->width) : -1.0;
  for (i = 0; i < p->nKept; i++) {
    aOut[6 + i] = (double)p->aKept[i].rowid;
    aOut[6 + p->nKept + i] = p->aKept[i].bm;
  }
  for (i = 0; i < p->nSeq; i++) aOut[6 + 2 * p->nKept + i] = (double)p->aSeq[i];
  windowReset(p);
  sqlite3_result_blob64(pCtx, aOut, (sqlite3_uint64)nOut * sizeof(double), sqlite3_free);
}

/*
** The Submitted view's text search in C (apps/server/src/search/sqlite-text-answered.ts answeredRead, issue 31):
**
**   WITH g(lo, hi) AS (<the ranges around the candidates>)
**   SELECT 1 FROM g CROSS JOIN records_fts WHERE records_fts MATCH ? AND records_fts.rowid BETWEEN g.lo AND g.hi
**     AND tessera_answered(records_fts, members, first, k, lo, width, generation [, rows_0, rows_1, ...])
**   SELECT tessera_answered_result()
**
** tessera_answered tests each row's record against `members` (tessera_seq_in's bitmap) before anything else, counts the
** candidates' matching records and scores their rows (tessera_bm25's score, the rows' lengths as tessera_window reads them:
** lengthOf with `generation`), keeping each record's best row (lowest score, then rowid) and the `k` best records by
** (window, score, rowid): the window of a record is floor((seq - lo) / width), 0 for all when width is 0 (text-window.ts'
** windowOf). k = 0: the records are only counted. It is always 0 (no row leaves the statement). Read row by row in
** JavaScript, an annotator's 10,000 records every 50th of 1M cost ~10 us a row with a common word (the row, its score by
** xColumnSize's seek from the docsize table's root, the row array: 147 ms for 9,656 rows, 50 of them the walk).
** tessera_answered_result() answers a blob of doubles: records, kept, rows read, then kept rowids, kept scores, in order;
** and forgets them. The state is the connection's (one statement at a time), kept across the ranges' filters.
*/
#define ANSWERED_ARGS 6
typedef struct AnsRow AnsRow;

static int ansLess(const AnsRow *a, const AnsRow *b) {
  return a->win < b->win || (a->win == b->win && (a->bm < b->bm || (a->bm == b->bm && a->rowid < b->rowid)));
}
static int ansCompare(const void *a, const void *b) {
  const AnsRow *x = (const AnsRow *)a, *y = (const AnsRow *)b;
  return ansLess(x, y) ? -1 : ansLess(y, x) ? 1 : 0;
}
static void ansSiftDown(AnsRow *aHeap, sqlite3_int64 n, sqlite3_int64 i) {
  for (;;) {
    sqlite3_int64 l = 2 * i + 1, r = l + 1, m = i;
    AnsRow t;
    if (l < n && ansLess(&aHeap[m], &aHeap[l])) m = l;
    if (r < n && ansLess(&aHeap[m], &aHeap[r])) m = r;
    if (m == i) return;
    t = aHeap[i];
    aHeap[i] = aHeap[m];
    aHeap[m] = t;
    i = m;
  }
}
static void ansSiftUp(AnsRow *aHeap, sqlite3_int64 i) {
  while (i > 0) {
    sqlite3_int64 parent = (i - 1) / 2;
    AnsRow t;
    if (!ansLess(&aHeap[parent], &aHeap[i])) return;
    t = aHeap[i];
    aHeap[i] = aHeap[parent];
    aHeap[parent] = t;
    i = parent;
  }
}

/*
** The k best records of many (a plain word's deep read, sqlite-text-deep.ts: k = 33,920 of ~85K records a half at 1M
** records), without a heap: a heap of k kept most of the records and sifted each through ~15 levels, then sorted the k
** (~40% of a half's CPU). The records' best rows, appended in the order read (rowid order), have few distinct keys (the
** window and the score: one plain word's score is a function of the row's frequency and length), so their k best by
** (window, score, rowid) are found by counting: each distinct key's records, the keys sorted (a few thousand), the cut
** key (the k-th record's), then one pass in rowid order keeps those before the cut and the first records of the cut key,
** which are the cut key's smallest rowids. ansSelect keeps them in rowid order (`place` 0: the array cut down while
** reading) or places them in the order (`place` 1: each key's records from its first place on, in rowid order: sorted).
** Not in rowid order, or too many distinct keys: qsort, then the first k (the same records; ansOrdered cleared).
*/
#define ANS_COLLECT_MIN 4096
#define ANS_DISTINCT_MAX 65536
typedef struct AnsKey {
  sqlite3_int64 win;
  double bm;
  sqlite3_int64 n, at; /* the key's records, then (sorted) the first place of its records */
  int rank;            /* its place among the sorted keys (by the hash's index) */
} AnsKey;
static int ansKeyCompare(const void *a, const void *b) {
  const AnsKey *x = (const AnsKey *)a, *y = (const AnsKey *)b;
  if (x->win != y->win) return x->win < y->win ? -1 : 1;
  return x->bm < y->bm ? -1 : x->bm > y->bm ? 1 : 0;
}
static sqlite3_uint64 ansKeyHash(sqlite3_int64 win, double bm) {
  sqlite3_uint64 bits;
  if (bm == 0.0) bm = 0.0; /* -0.0 and 0.0 are one key */
  memcpy(&bits, &bm, sizeof bits);
  return (bits ^ ((sqlite3_uint64)win * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
}
/* The slot of (win, bm) in a table of nSlot (a power of two) indexes into aKey (-1: empty). */
static int *ansKeySlot(int *aSlot, sqlite3_int64 nSlot, const AnsKey *aKey, sqlite3_int64 win, double bm) {
  sqlite3_uint64 h = ansKeyHash(win, bm) >> 32;
  for (;;) {
    int *pSlot = &aSlot[h & (sqlite3_uint64)(nSlot - 1)];
    if (*pSlot < 0 || (aKey[*pSlot].win == win && aKey[*pSlot].bm == bm)) return pSlot;
    h++;
  }
}
/*
** The distinct keys of aAnsTop in *paKey (their records counted) and each record's key in *paOf: 0 when there are more
** than ANS_DISTINCT_MAX (or out of memory: *pNoMem). The table starts small and doubles: a few thousand keys stay in the
** caches (a table sized for the records, 512 KB at 65,536 of them, cost more than the scores).
*/
static int ansKeys(WindowState *p, AnsKey **paKey, sqlite3_int64 *pnKey, int **paOf, int *pNoMem) {
  sqlite3_int64 n = p->nAnsTop, nKey = 0, nSlot = 1024, aKeySize = 0, i, j;
  AnsKey *aKey = 0;
  int *aSlot = (int *)sqlite3_malloc64((sqlite3_uint64)nSlot * sizeof(int));
  int *aOf = (int *)sqlite3_malloc64((sqlite3_uint64)n * sizeof(int) + 1);
  *paKey = 0;
  *paOf = 0;
  if (aSlot == 0 || aOf == 0) goto nomem;
  memset(aSlot, 0xff, (size_t)nSlot * sizeof(int));
  for (i = 0; i < n; i++) {
    const AnsRow *r = &p->aAnsTop[i];
    int *pSlot = ansKeySlot(aSlot, nSlot, aKey, r->win, r->bm);
    if (*pSlot < 0) {
      if (nKey == ANS_DISTINCT_MAX) break;
      if (!grow((void **)&aKey, &aKeySize, nKey + 1, sizeof(AnsKey))) goto nomem;
      aKey[nKey].win = r->win;
      aKey[nKey].bm = r->bm;
      aKey[nKey].n = 0;
      *pSlot = (int)nKey++;
      if (2 * nKey > nSlot) {
        /* Doubled, the keys placed again. */
        int *aNew = (int *)sqlite3_malloc64((sqlite3_uint64)nSlot * 2 * sizeof(int));
        if (aNew == 0) goto nomem;
        sqlite3_free(aSlot);
        aSlot = aNew;
        nSlot *= 2;
        memset(aSlot, 0xff, (size_t)nSlot * sizeof(int));
        for (j = 0; j < nKey; j++) *ansKeySlot(aSlot, nSlot, aKey, aKey[j].win, aKey[j].bm) = (int)j;
        pSlot = ansKeySlot(aSlot, nSlot, aKey, r->win, r->bm);
      }
    }
    aKey[*pSlot].n++;
    aOf[i] = *pSlot;
  }
  sqlite3_free(aSlot);
  if (i < n) {
    sqlite3_free(aKey);
    sqlite3_free(aOf);
    return 0;
  }
  *paKey = aKey;
  *pnKey = nKey;
  *paOf = aOf;
  return 1;
nomem:
  sqlite3_free(aSlot);
  sqlite3_free(aKey);
  sqlite3_free(aOf);
  *pNoMem = 1;
  return 0;
}
/* The k best of aAnsTop, in rowid order or (place) sorted; 0 when out of memory. */
static int ansSelect(WindowState *p, int place) {
  sqlite3_int64 n = p->nAnsTop, k = p->ansK, nKey = 0, i, before = 0, cut = -1, take = 0;
  AnsKey *aKey = 0, *aSorted = 0;
  int *aOf = 0, noMem = 0, counted = 0;
  AnsRow *aOut = 0;
  if (n == 0 || (!place && n <= k)) return 1;
  if (p->ansOrdered && ansKeys(p, &aKey, &nKey, &aOf, &noMem)) {
    aSorted = (AnsKey *)sqlite3_malloc64((sqlite3_uint64)nKey * sizeof(AnsKey));
    if (place) aOut = (AnsRow *)sqlite3_malloc64((sqlite3_uint64)(n < k ? n : k) * sizeof(AnsRow));
    if (aSorted == 0 || (place && aOut == 0)) noMem = 1;
    else {
      for (i = 0; i < nKey; i++) {
        aSorted[i] = aKey[i];
        aSorted[i].rank = (int)i; /* the key's index, for now */
      }
      qsort(aSorted, (size_t)nKey, sizeof(AnsKey), ansKeyCompare);
      for (i = 0; i < nKey; i++) {
        aKey[aSorted[i].rank].rank = (int)i;
        aSorted[i].at = before;
        if (cut < 0 && before + aSorted[i].n >= k) {
          cut = i;
          take = k - before;
        }
        before += aSorted[i].n;
      }
      if (cut < 0) {
        cut = nKey - 1;
        take = aSorted[cut].n;
      }
      {
        sqlite3_int64 kept = 0;
        for (i = 0; i < n; i++) {
          sqlite3_int64 rank = aKey[aOf[i]].rank;
          if (rank > cut || (rank == cut && take == 0)) continue;
          if (rank == cut) take--;
          if (place) aOut[aSorted[rank].at++] = p->aAnsTop[i];
          else p->aAnsTop[kept++] = p->aAnsTop[i];
        }
        if (place) {
          sqlite3_free(p->aAnsTop);
          p->aAnsTop = aOut;
          aOut = 0;
          p->nAnsTop = p->aAnsTopSize = n < k ? n : k;
        } else p->nAnsTop = kept;
      }
      counted = 1;
    }
  }
  if (!noMem && !counted) {
    /* Not in rowid order, or too many keys: sorted, the first k kept. */
    qsort(p->aAnsTop, (size_t)n, sizeof(AnsRow), ansCompare);
    if (p->nAnsTop > k) p->nAnsTop = k;
    p->ansOrdered = 0;
  }
  sqlite3_free(aOut);
  sqlite3_free(aKey);
  sqlite3_free(aSorted);
  sqlite3_free(aOf);
  return !noMem;
}

/* The record read last: its best row among the k best (0 when out of memory). */
static int ansFlush(WindowState *p) {
  if (!p->ansHaveBest || p->ansK <= 0) return 1;
  p->ansHaveBest = 0;
  if (p->ansCollect) {
    /* Cut to the k best when twice as many are kept (a pass in ~linear time per k records read). */
    if (p->nAnsTop >= 2 * p->ansK && !ansSelect(p, 0)) return 0;
    if (!grow((void **)&p->aAnsTop, &p->aAnsTopSize, p->nAnsTop + 1, sizeof(AnsRow))) return 0;
    if (p->nAnsTop > 0 && p->aAnsTop[p->nAnsTop - 1].rowid >= p->ansBest.rowid) p->ansOrdered = 0;
    p->aAnsTop[p->nAnsTop++] = p->ansBest;
    return 1;
  }
  if (p->nAnsTop < p->ansK) {
    if (!grow((void **)&p->aAnsTop, &p->aAnsTopSize, p->nAnsTop + 1, sizeof(AnsRow))) return 0;
    p->aAnsTop[p->nAnsTop] = p->ansBest;
    ansSiftUp(p->aAnsTop, p->nAnsTop++);
  } else if (ansLess(&p->ansBest, &p->aAnsTop[0])) {
    p->aAnsTop[0] = p->ansBest;
    ansSiftDown(p->aAnsTop, p->nAnsTop, 0);
  }
  return 1;
}

static void answeredReset(WindowState *p) {
  p->ansStarted = p->ansHaveBest = 0;
  p->ansK = p->ansLo = p->ansWidth = p->ansRecords = p->ansRead = 0;
  p->ansSeq = -1;
  p->nAnsTop = 0;
  p->ansCollect = 0;
  p->ansOrdered = 1;
  p->error = 0;
  sqlite3_finalize(p->pDocsize);
  p->pDocsize = 0;
  p->docsizeFailed = p->docsizeRow = 0;
}

static void tesseraAnswered(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal,
                            sqlite3_value **apVal) {
  WindowState *p = (WindowState *)pApi->xUserData(pFts);
  const unsigned char *aBits;
  sqlite3_int64 nBits, rowid, seq, i;
  if (nVal < ANSWERED_ARGS) {
    sqlite3_result_error(pCtx, "tessera_answered: members, first, k, lo, width and generation are required", -1);
    return;
  }
  rowid = pApi->xRowid(pFts);
  p->ansRead++;
  /* Not a blob (a caller's mistake): no member, as tessera_seq_in with a NULL. */
  aBits = sqlite3_value_type(apVal[0]) == SQLITE_BLOB ? (const unsigned char *)sqlite3_value_blob(apVal[0]) : 0;
  nBits = aBits ? (sqlite3_int64)sqlite3_value_bytes(apVal[0]) * 8 : 0;
  seq = rowid >> 10;
  i = seq - sqlite3_value_int64(apVal[1]);
  sqlite3_result_int(pCtx, 0);
  if (aBits == 0 || i < 0 || i >= nBits || !((aBits[i >> 3] >> (i & 7)) & 1)) return;
  if (!p->ansStarted) {
    /* The statement's first candidate row: its arguments (windowArgs' checks: k, lo, width, generation, then a dummy). */
    sqlite3_int64 a[WINDOW_ARGS];
    int j;
    for (j = 0; j < 4; j++) {
      int eType = sqlite3_value_numeric_type(apVal[2 + j]);
      double d = sqlite3_value_double(apVal[2 + j]);
      if ((eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) || !(d >= 0.0 && d <= 9.0e15) || d != floor(d)) {
        sqlite3_result_error(pCtx, "tessera_answered: k, lo, width and generation must be non-negative integers", -1);
        return;
      }
      a[j] = (sqlite3_int64)d;
    }
    p->ansK = a[0];
    p->ansCollect = a[0] >= ANS_COLLECT_MIN;
    p->ansOrdered = 1;
    p->ansLo = a[1];
    p->ansWidth = a[2];
    p->gen = a[3];
    p->ansStarted = 1;
  }
  if (seq != p->ansSeq) {
    if (!ansFlush(p)) goto nomem;
    p->ansSeq = seq;
    p->ansRecords++;
  }
  if (p->ansK > 0) {
    RankData *pData = 0;
    int reported = 0;
    double score = 0.0;
    int rc = rankData(pApi, pFts, pCtx, nVal - ANSWERED_ARGS, apVal + ANSWERED_ARGS, &pData, &reported);
    if (reported) return;
    if (rc == SQLITE_OK)
      rc = rowScore(pApi, pFts, pData, nVal - ANSWERED_ARGS, lengthOf(p, sqlite3_context_db_handle(pCtx), rowid, p->gen), &score);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(pCtx, rc);
      return;
    }
    if (!p->ansHaveBest || score < p->ansBest.bm || (score == p->ansBest.bm && rowid < p->ansBest.rowid)) {
      p->ansBest.rowid = rowid;
      p->ansBest.bm = score;
      p->ansBest.win = p->ansWidth == 0 ? 0 : floorDiv(seq - p->ansLo, p->ansWidth);
      p->ansHaveBest = 1;
    }
  }
  return;
nomem:
  p->error = 1;
  sqlite3_result_error_nomem(pCtx);
}

/* tessera_answered_result(): what the last tessera_answered statement read (above), then forgotten. */
static void answeredResult(sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  WindowState *p = (WindowState *)sqlite3_user_data(pCtx);
  sqlite3_int64 nOut, i;
  double *aOut;
  (void)nVal;
  (void)apVal;
  if (p->error || !ansFlush(p)) {
    answeredReset(p);
    sqlite3_result_error_nomem(pCtx);
    return;
  }
  if (p->ansCollect) {
    if (!ansSelect(p, 1)) {
      answeredReset(p);
      sqlite3_result_error_nomem(pCtx);
      return;
    }
  } else qsort(p->aAnsTop, (size_t)p->nAnsTop, sizeof(AnsRow), ansCompare);
  nOut = 3 + 2 * p->nAnsTop;
  aOut = (double *)sqlite3_malloc64((sqlite3_uint64)nOut * sizeof(double));
  if (aOut == 0) {
    answeredReset(p);
    sqlite3_result_error_nomem(pCtx);
    return;
  }
  aOut[0] = (double)p->ansRecords;
  aOut[1] = (double)p->nAnsTop;
  aOut[2] = (double)p->ansRead;
  for (i = 0; i < p->nAnsTop; i++) {
    aOut[3 + i] = (double)p->aAnsTop[i].rowid;
    aOut[3 + p->nAnsTop + i] = p->aAnsTop[i].bm;
  }
  answeredReset(p);
  sqlite3_result_blob64(pCtx, aOut, (sqlite3_uint64)nOut * sizeof(double), sqlite3_free);
}

/* tessera_seq_in(members, first, rowid): whether rowid's record is in the bitmap (a NULL or short blob: not). */
static void seqIn(sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  const unsigned char *aBits = (const unsigned char *)sqlite3_value_blob(apVal[0]);
  sqlite3_int64 nBits = (sqlite3_int64)sqlite3_value_bytes(apVal[0]) * 8;
  sqlite3_int64 i = (sqlite3_value_int64(apVal[2]) >> 10) - sqlite3_value_int64(apVal[1]);
  (void)nVal;
  sqlite3_result_int(pCtx, aBits != 0 && i >= 0 && i < nBits && ((aBits[i >> 3] >> (i & 7)) & 1));
}

/*
** tessera_lengths_load(generation, lo, hi, from, to): loads the lengths of every row of the seqs from..to into the table
** of every row's length of the seqs lo..hi at `generation` (the caller's index version, as tessera_window's), which
** lengthOf reads before anything else: a plain word's deep read (sqlite-text-deep.ts) reads ~10% of a dataset's rows
** in seq order, ~1 in 9 records, where the docsize cursor seeks for every row (1M records, a word in 11% of them: ~65 of
** a half's ~100 ms; from the table ~30). Batches in seq order: `from` must be the first seq not loaded yet (lo when the
** table is another's: it starts over); it answers the next seq to load (hi + 1: all loaded). ~4 bytes a row and a seq.
*/
static void lengthsLoad(sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  WindowState *p = (WindowState *)sqlite3_user_data(pCtx);
  sqlite3 *db = sqlite3_context_db_handle(pCtx);
  sqlite3_int64 a[5], cur;
  sqlite3_stmt *pStmt = 0;
  int i, rc;
  (void)nVal;
  for (i = 0; i < 5; i++) {
    int eType = sqlite3_value_numeric_type(apVal[i]);
    double d = sqlite3_value_double(apVal[i]);
    if ((eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) || !(d >= 0.0 && d <= 4.0e9) || d != floor(d)) {
      sqlite3_result_error(pCtx, "tessera_lengths_load: generation, lo, hi, from and to must be non-negative integers", -1);
      return;
    }
    a[i] = (sqlite3_int64)d;
  }
  if (a[0] < 1 || a[1] > a[2] || a[3] < a[1] || a[3] > a[4]) {
    sqlite3_result_error(pCtx, "tessera_lengths_load: generation >= 1, lo <= from <= to and lo <= hi are required", -1);
    return;
  }
  if (a[4] > a[2]) a[4] = a[2];
  if (p->fullGen != a[0] || p->fullLo != a[1] || p->fullHi != a[2]) {
    unsigned int *aStart;
    if (a[3] != a[1]) {
      sqlite3_result_int64(pCtx, a[1]);
      return;
    }
    p->fullGen = 0;
    aStart = (unsigned int *)sqlite3_realloc64(p->aFullStart, (sqlite3_uint64)(a[2] - a[1] + 2) * sizeof(unsigned int));
    if (aStart == 0) {
      sqlite3_result_error_nomem(pCtx);
      return;
    }
    p->aFullStart = aStart;
    p->fullGen = a[0];
    p->fullLo = p->fullNext = a[1];
    p->fullHi = a[2];
    p->nFull = 0;
  }
  if (a[3] != p->fullNext) {
    sqlite3_result_int64(pCtx, p->fullNext);
    return;
  }
  rc = sqlite3_prepare_v2(db, "SELECT id, sz FROM fts.records_fts_docsize WHERE id BETWEEN ?1 AND ?2 ORDER BY id", -1, &pStmt, 0);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(pStmt, 1, a[3] * 1024);
    sqlite3_bind_int64(pStmt, 2, a[4] * 1024 + 1023);
  }
  cur = a[3];
  p->aFullStart[cur - p->fullLo] = (unsigned int)p->nFull;
  while (pStmt != 0 && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    sqlite3_int64 id = sqlite3_column_int64(pStmt, 0), total = 0;
    const unsigned char *aSz = (const unsigned char *)sqlite3_column_blob(pStmt, 1);
    int nSz = sqlite3_column_bytes(pStmt, 1), j, bad = 0;
    while (cur < (id >> 10)) p->aFullStart[++cur - p->fullLo] = (unsigned int)p->nFull;
    for (j = 0; j < nSz;) {
      sqlite3_uint64 v;
      int m = getVarint(&aSz[j], nSz - j, &v);
      if (m == 0) {
        bad = 1;
        break;
      }
      total += (sqlite3_int64)v;
      j += m;
    }
    if (p->nFull + 1 > p->aFullSize) {
      sqlite3_int64 size = p->aFullSize ? p->aFullSize * 2 : 65536;
      unsigned short *aField = (unsigned short *)sqlite3_realloc64(p->aFullField, (sqlite3_uint64)size * sizeof(unsigned short));
      unsigned short *aLen = aField ? (unsigned short *)sqlite3_realloc64(p->aFullLen, (sqlite3_uint64)size * sizeof(unsigned short)) : 0;
      if (aField) p->aFullField = aField;
      if (aLen == 0) {
        rc = SQLITE_NOMEM;
        break;
      }
      p->aFullLen = aLen;
      p->aFullSize = size;
    }
    p->aFullField[p->nFull] = (unsigned short)(id & 1023);
    p->aFullLen[p->nFull] = (bad || total >= FULL_UNKNOWN) ? FULL_UNKNOWN : (unsigned short)total;
    p->nFull++;
  }
  sqlite3_finalize(pStmt);
  if (rc != SQLITE_DONE) {
    /* Not loaded: the table is no one's (lengthOf reads as before). */
    p->fullGen = 0;
    if (rc == SQLITE_NOMEM) sqlite3_result_error_nomem(pCtx);
    else sqlite3_result_error_code(pCtx, rc);
    return;
  }
  while (cur < a[4]) p->aFullStart[++cur - p->fullLo] = (unsigned int)p->nFull;
  p->aFullStart[a[4] + 1 - p->fullLo] = (unsigned int)p->nFull;
  p->fullNext = a[4] + 1;
  sqlite3_result_int64(pCtx, p->fullNext);
}

/*
** tessera_rank_version(): this source's version of the functions' arguments and answers, which the server checks
** (rank-extension.ts' RANK_EXTENSION_VERSION) so that a file built from an older source is not used. 2: tessera_window
** with its generation argument (session 16); 3: tessera_answered (session 17); 4: tessera_window's from and width, whole
** windows kept and the next window's seq answered (session 18); 5: tessera_lengths_load (session 21); 6: tessera_answered's
** k best of many records by counting their keys (ansSelect, session 22: the same answers, a file without it not used).
*/
#define TESSERA_RANK_VERSION 6
static void rankVersion(sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  (void)nVal;
  (void)apVal;
  sqlite3_result_int(pCtx, TESSERA_RANK_VERSION);
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
    WindowState *pWindow;
    int rc = sqlite3_create_function(db, "tessera_rank_version", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, rankVersion, 0, 0);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_create_function(db, "tessera_seq_in", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, seqIn, 0, 0);
    if (rc != SQLITE_OK) return rc;
    rc = fts5->xCreateFunction(fts5, "tessera_bm25", 0, tesseraBm25, 0);
    if (rc != SQLITE_OK) return rc;
    /* The connection's windows: the aux function owns them (freed with the connection), the result function reads them. */
    pWindow = (WindowState *)sqlite3_malloc64(sizeof(WindowState));
    if (pWindow == 0) return SQLITE_NOMEM;
    memset(pWindow, 0, sizeof(WindowState));
    pWindow->ansSeq = -1;
    rc = fts5->xCreateFunction(fts5, "tessera_window", (void *)pWindow, tesseraWindow, windowFree);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_create_function(db, "tessera_window_result", 0, SQLITE_UTF8, (void *)pWindow, windowResult, 0, 0);
    if (rc != SQLITE_OK) return rc;
    /* The same state (its rows' lengths): freed with tessera_window. */
    rc = fts5->xCreateFunction(fts5, "tessera_answered", (void *)pWindow, tesseraAnswered, 0);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_create_function(db, "tessera_lengths_load", 5, SQLITE_UTF8, (void *)pWindow, lengthsLoad, 0, 0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_create_function(db, "tessera_answered_result", 0, SQLITE_UTF8, (void *)pWindow, answeredResult, 0, 0);
  }
}
