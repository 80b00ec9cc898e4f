/*
 * radik_native_like.c
 *	  A LIKE pattern of literal text and % as its literal pieces, and the byte match of a string
 *	  against them (radik_native_like.h says when that is PostgreSQL's LIKE).
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/lsyscache.h"

#include "radik_compat.h"
#include "radik_native_like.h"

struct RadikLikePattern
{
	bool		has_percent;	/* else the string must be the one piece (or empty) */
	bool		anchored_start; /* the first piece begins the string: no % before it */
	bool		anchored_end;	/* the last piece ends it: no % after it */
	int			npieces;
	int		   *starts;			/* each piece's offset in bytes */
	int		   *lengths;
	char	   *bytes;			/* the pieces, unescaped, one after another */
};

RadikLikePattern *
radik_like_compile(const text *pattern, Oid collation)
{
	const char *p = VARDATA_ANY(pattern);
	int			plen = VARSIZE_ANY_EXHDR(pattern);
	RadikLikePattern *compiled;
	bool		in_piece = false;
	int			used = 0;

	if (pg_database_encoding_max_length() != 1 && GetDatabaseEncoding() != PG_UTF8)
		return NULL;
	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return NULL;

	compiled = palloc0(sizeof(RadikLikePattern));
	compiled->bytes = palloc(plen + 1);
	compiled->starts = palloc((plen + 1) * sizeof(int));
	compiled->lengths = palloc((plen + 1) * sizeof(int));
	compiled->anchored_start = plen == 0 || p[0] != '%';
	for (int i = 0; i < plen; i++)
	{
		char		c = p[i];

		if (c == '\\')
		{
			/* the next byte is literal; PostgreSQL raises an error where there is none */
			if (++i == plen)
				return NULL;
			c = p[i];
		}
		else if (c == '%')
		{
			compiled->has_percent = true;
			in_piece = false;
			continue;
		}
		else if (c == '_')
			return NULL;
		if (!in_piece)
		{
			compiled->starts[compiled->npieces] = used;
			compiled->lengths[compiled->npieces] = 0;
			compiled->npieces++;
			in_piece = true;
		}
		compiled->bytes[used++] = c;
		compiled->lengths[compiled->npieces - 1]++;
	}
	compiled->anchored_end = in_piece;
	return compiled;
}

/* The first place at or after s, within len bytes, where the piece of plen bytes is; or NULL. */
static const char *
find_piece(const char *s, int len, const char *piece, int plen)
{
	const char *last;

	if (len < plen)
		return NULL;
	last = s + len - plen;
	while (s <= last)
	{
		const char *hit = memchr(s, piece[0], last - s + 1);

		if (hit == NULL)
			return NULL;
		if (memcmp(hit + 1, piece + 1, plen - 1) == 0)
			return hit;
		s = hit + 1;
	}
	return NULL;
}

bool
radik_like_match(const RadikLikePattern *pattern, const char *s, int len)
{
	int			pos = 0;
	int			end = len;
	int			first = 0;
	int			last = pattern->npieces;

	if (!pattern->has_percent)
		return pattern->npieces == 0 ? len == 0 :
			len == pattern->lengths[0] && memcmp(s, pattern->bytes, len) == 0;
	if (pattern->anchored_start)
	{
		int			length = pattern->lengths[0];

		if (len < length || memcmp(s, pattern->bytes, length) != 0)
			return false;
		pos = length;
		first = 1;
	}
	if (pattern->anchored_end)
	{
		/* a % lies between this piece and the first: they are not the same piece */
		int			length = pattern->lengths[last - 1];

		if (len - pos < length ||
			memcmp(s + len - length, pattern->bytes + pattern->starts[last - 1], length) != 0)
			return false;
		end = len - length;
		last--;
	}
	for (int i = first; i < last; i++)
	{
		const char *found = find_piece(s + pos, end - pos,
									   pattern->bytes + pattern->starts[i], pattern->lengths[i]);

		if (found == NULL)
			return false;
		pos = (found - s) + pattern->lengths[i];
	}
	return true;
}
