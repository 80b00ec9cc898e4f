/*
 * radik_native_like.h
 *	  LIKE and NOT LIKE against a constant pattern of literal text and %, on a text value's raw
 *	  bytes, for the native quals (radik_native_qual.c).
 *
 * "name LIKE 'a%'" is a common filter beside ORDER BY ... LIMIT, and through the executor it
 * costs a function call and a walk to the column per row, about as much as the rest of radik's
 * scan.  For a pattern made of literal characters and % only (\ escapes included, _ not), the
 * match PostgreSQL's MatchText makes is plain byte matching: the pattern's literal pieces, in
 * order, the first at the start unless the pattern begins with %, the last at the end unless it
 * ends with %.  Leftmost matches of the pieces between suffice, as for any pattern of literals
 * and %.  Bytes may stand for characters because the database encoding is UTF-8 (a piece's
 * first byte never matches inside a character) or has one byte per character; other encodings
 * are declined, as are nondeterministic collations (for which PostgreSQL's LIKE raises an error,
 * or from version 18 compares otherwise), patterns with _ and patterns ending in an escape.
 */
#ifndef RADIK_NATIVE_LIKE_H
#define RADIK_NATIVE_LIKE_H

#include "postgres.h"

typedef struct RadikLikePattern RadikLikePattern;

/*
 * The pattern compiled, palloc'd, or NULL where a byte match could differ from PostgreSQL's
 * LIKE under collation.
 */
extern RadikLikePattern *radik_like_compile(const text *pattern, Oid collation);

/* Does the string of len bytes at s match? */
extern bool radik_like_match(const RadikLikePattern *pattern, const char *s, int len);

#endif							/* RADIK_NATIVE_LIKE_H */
