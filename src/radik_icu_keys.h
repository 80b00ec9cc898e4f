/*
 * radik_icu_keys.h
 *	  The first 8 bytes of a string's ICU sort key, the engine key of text under an ICU collation,
 *	  made from a table of the collation's ASCII characters instead of by ICU for every value.
 *
 * Under an ICU collation PostgreSQL's abbreviated key, and so radik's engine key, is the first 8
 * bytes of the ICU sort key, and ICU makes it at a cost close to that of a whole comparison:
 * ordering 50 million strings by it was no faster than PostgreSQL's sort.  But a sort key begins
 * with the primary weights of the string's collation elements, and for most ASCII characters of
 * most collations each character is one collation element whatever surrounds it.  For those
 * characters radik_icu_table reads the primary weight from ICU once per collation, and
 * radik_icu_prefix writes the first 8 bytes as ICU's sort key writer does (CollationKeys::
 * writeSortKeyUpToQuaternary: a primary's lead byte, then its other bytes; a lead byte the
 * collation compresses written once for a run of primaries that share it, with a byte above or
 * below at the end of the run).  A character is in the table only if:
 *  - it is one collation element with a primary weight of 1 to 4 bytes (not ignorable, not a
 *    variable character shifted to the quaternary level, not an expansion);
 *  - it begins no contraction or prefix mapping, except ones whose second character is not
 *    ASCII: such a character (RADIK_ICU_STARTER, "l" of the root collation's "l·") counts only
 *    when the next byte is ASCII or the string ends (a contraction's later characters need no
 *    such care: the key stops at its first, outside the table or before a byte that is not
 *    ASCII);
 *  - under numeric ordering ("kn"), it is not a digit.
 * A string that reaches a character outside the table before 8 bytes are written, or that ends
 * sooner (its key then holds its secondary weights), is left to ICU.  The table is checked
 * before it is used: its keys must equal ICU's for every ordered pair of its characters and for
 * random strings of them; else the collation has no table.  Tables are kept per ICU collator
 * for the backend's life, as PostgreSQL keeps the collators.  Without ICU's headers at build
 * time, under PostgreSQL 18 (whose locale structure differs), or where the running server's ICU
 * is not the version radik was built against, there is no table and ICU makes every key.
 */
#ifndef RADIK_ICU_KEYS_H
#define RADIK_ICU_KEYS_H

#include "postgres.h"

#define RADIK_ICU_SIMPLE		0x01	/* in the table */
#define RADIK_ICU_STARTER		0x02	/* only before an ASCII byte or the end */
#define RADIK_ICU_COMPRESSIBLE	0x04	/* its primary's lead byte is compressed in runs */

typedef struct RadikIcuTable
{
	uint32		primary[128];	/* the primary weight, left-aligned, as the sort key holds it */
	uint8		flags[128];
	/*
	 * For any byte: the primary weight of a character in the table that is neither a starter
	 * nor compressed, where that weight is one byte; else 0.  Most strings' first 8 characters
	 * are all such characters (every letter and digit but "l" and "L" in the root collation),
	 * whose key is then their 8 weights.
	 */
	uint8		one_byte[256];
} RadikIcuTable;

/*
 * The table of collation (an ICU collation, not "C"), made on first use and kept; NULL where it
 * has none.
 */
extern const RadikIcuTable *radik_icu_table(Oid collation);

/*
 * Record a copy of table as collation's, unless the backend has made its own already: a parallel
 * worker takes its leader's table instead of asking ICU for it again on every query.
 */
extern void radik_icu_table_adopt(Oid collation, const RadikIcuTable *table);

/*
 * The first 8 bytes of the ICU sort key of the len bytes at s, big-endian, as PostgreSQL's
 * abbreviated key holds them, into *key; false where the string needs ICU itself.
 */
static pg_attribute_always_inline bool
radik_icu_prefix(const RadikIcuTable *table, const unsigned char *s, int len, uint64 *key)
{
	unsigned char out[8 + 5];	/* one primary may write 5 bytes past the 8th */
	int			n = 0;
	uint32		previous = 0;	/* the first primary of a compressed run, 0 outside one */

	if (len >= 8)
	{
		uint64		weights = 0;

		for (int i = 0; i < 8; i++)
			weights = (weights << 8) | table->one_byte[s[i]];
		/* no zero byte among the 8 weights: every character had one */
		if (((weights - UINT64CONST(0x0101010101010101)) & ~weights &
			 UINT64CONST(0x8080808080808080)) == 0)
		{
			*key = weights;
			return true;
		}
	}
	for (int i = 0; i < len && n < 8; i++)
	{
		unsigned char c = s[i];
		uint8		flags;
		uint32		primary;
		uint32		lead;

		if (c >= 128)
			return false;
		flags = table->flags[c];
		if ((flags & RADIK_ICU_SIMPLE) == 0)
			return false;
		if ((flags & RADIK_ICU_STARTER) != 0 && i + 1 < len && s[i + 1] >= 128)
			return false;
		primary = table->primary[c];
		lead = primary >> 24;
		if ((flags & RADIK_ICU_COMPRESSIBLE) == 0 || lead != (previous >> 24))
		{
			if (previous != 0)
			{
				if (primary < previous)
				{
					if (lead > 2)
						out[n++] = 3;	/* below the run's end */
				}
				else
					out[n++] = 0xFF;	/* above it */
			}
			out[n++] = (unsigned char) lead;
			previous = (flags & RADIK_ICU_COMPRESSIBLE) != 0 ? primary : 0;
		}
		if ((primary & 0x00FF0000) != 0)
		{
			out[n++] = (unsigned char) (primary >> 16);
			if ((primary & 0x0000FF00) != 0)
			{
				out[n++] = (unsigned char) (primary >> 8);
				if ((primary & 0x000000FF) != 0)
					out[n++] = (unsigned char) primary;
			}
		}
	}
	if (n < 8)
		return false;
	*key = ((uint64) out[0] << 56) | ((uint64) out[1] << 48) | ((uint64) out[2] << 40) |
		((uint64) out[3] << 32) | ((uint64) out[4] << 24) | ((uint64) out[5] << 16) |
		((uint64) out[6] << 8) | (uint64) out[7];
	return true;
}

#endif							/* RADIK_ICU_KEYS_H */
