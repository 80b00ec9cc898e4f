/*
 * radik_icu_keys.c
 *	  Tables of an ICU collation's ASCII characters, from which radik_icu_prefix makes the first 8
 *	  bytes of a string's sort key without ICU (radik_icu_keys.h says which characters and why).
 *
 * The collator is PostgreSQL's own (pg_newlocale_from_collation), so the table follows the
 * collation exactly as PostgreSQL opened it, with its locale's attributes and tailoring.  ICU is
 * asked for the sort keys of single characters (their primary weights), of each character
 * twice (whether its lead byte is compressed), and of the contractions and expansions the
 * collation defines; then the table is checked against ICU's keys of every ordered pair of its
 * characters and of random strings, and dropped at the first difference.
 *
 * ICU's functions are declared weak: ICU's headers rename every function after ICU's major
 * version, and a server running another ICU than the headers radik was built with must still
 * load radik (without tables).  Nothing here raises an error between an ICU set's opening and
 * its closing.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"

#include "radik_icu_keys.h"

#if defined(USE_ICU) && PG_VERSION_NUM < 180000 && defined(__has_include)
#if __has_include(<unicode/ucol.h>)
#define RADIK_ICU_TABLES 1
#endif
#endif

#ifdef RADIK_ICU_TABLES

#include <unicode/ucol.h>
#include <unicode/uset.h>

#include "utils/pg_locale.h"

extern __typeof__(ucol_getSortKey) ucol_getSortKey __attribute__((weak));
extern __typeof__(ucol_getAttribute) ucol_getAttribute __attribute__((weak));
extern __typeof__(ucol_getContractionsAndExpansions) ucol_getContractionsAndExpansions
			__attribute__((weak));
extern __typeof__(uset_openEmpty) uset_openEmpty __attribute__((weak));
extern __typeof__(uset_close) uset_close __attribute__((weak));
extern __typeof__(uset_contains) uset_contains __attribute__((weak));
extern __typeof__(uset_getItemCount) uset_getItemCount __attribute__((weak));
extern __typeof__(uset_getItem) uset_getItem __attribute__((weak));

/* Strings of the check with random characters, and their longest length. */
#define RANDOM_CHECKS 2000
#define RANDOM_CHECK_LENGTH 24

/* The tables made so far, one per collator, failures (table NULL) included. */
typedef struct IcuTableEntry
{
	const UCollator *collator;
	RadikIcuTable *table;
	struct IcuTableEntry *next;
} IcuTableEntry;

static IcuTableEntry *icu_tables = NULL;

static bool
icu_available(void)
{
	return ucol_getSortKey != NULL && ucol_getAttribute != NULL &&
		ucol_getContractionsAndExpansions != NULL && uset_openEmpty != NULL &&
		uset_close != NULL && uset_contains != NULL && uset_getItemCount != NULL &&
		uset_getItem != NULL;
}

/* The first 8 bytes of the ICU sort key of an ASCII string, as radik_icu_prefix makes them. */
static uint64
icu_key_prefix(const UCollator *collator, const unsigned char *s, int len)
{
	UChar		text[RANDOM_CHECK_LENGTH];
	uint8_t		sort_key[8 * RANDOM_CHECK_LENGTH] = {0};
	uint64		key = 0;

	Assert(len <= RANDOM_CHECK_LENGTH);
	for (int i = 0; i < len; i++)
		text[i] = s[i];
	if (ucol_getSortKey(collator, text, len, sort_key, sizeof(sort_key)) > (int32_t) sizeof(sort_key))
		return ~UINT64CONST(0);	/* cannot happen: no match, then */
	for (int i = 0; i < 8; i++)
		key = (key << 8) | sort_key[i];
	return key;
}

/* The primary weight of one character, left-aligned; 0 if it has none or more than 4 bytes. */
static uint32
icu_primary(const UCollator *collator, unsigned char c)
{
	UChar		text = c;
	uint8_t		sort_key[64];
	int32_t		len = ucol_getSortKey(collator, &text, 1, sort_key, sizeof(sort_key));
	uint32		primary = 0;
	int			n;

	if (len <= 0 || len > (int32_t) sizeof(sort_key))
		return 0;
	/* the primary level ends at the level separator 01 (or the terminator 00) */
	for (n = 0; n < len && sort_key[n] > 1; n++)
	{
		if (n == 4)
			return 0;
		primary |= (uint32) sort_key[n] << (24 - 8 * n);
	}
	return primary;
}

/*
 * Leave out of table the first characters of collator's contractions and prefix mappings
 * (except where the second is not ASCII: the first is then a starter) and its expansions.
 * False where ICU could not say, or where a contraction is longer than the buffer that would
 * hold its first characters (ICU then copies none of it).
 */
static bool
drop_contractions(const UCollator *collator, RadikIcuTable *table)
{
	USet	   *contractions = uset_openEmpty();
	USet	   *expansions = uset_openEmpty();
	UErrorCode status = U_ZERO_ERROR;
	int32_t		items;

	if (contractions == NULL || expansions == NULL)
		status = U_MEMORY_ALLOCATION_ERROR;
	else
		ucol_getContractionsAndExpansions(collator, contractions, expansions, true, &status);
	items = U_SUCCESS(status) ? uset_getItemCount(contractions) : 0;
	for (int32_t i = 0; i < items && U_SUCCESS(status); i++)
	{
		UChar32		start;
		UChar32		end;
		UChar		string[64];
		int32_t		len = uset_getItem(contractions, i, &start, &end, string, lengthof(string),
									   &status);

		if (U_FAILURE(status))
			break;
		if (len == 0)
		{
			/* single code points: characters with a prefix mapping of their own */
			for (UChar32 c = start; c <= end && c < 128; c++)
				table->flags[c] = 0;
			continue;
		}
		/*
		 * Only a contraction's first character matters: the table's keys stop at the first
		 * character outside the table, and a starter counts only before an ASCII byte, so a
		 * later character of a contraction is never reached after its first.
		 */
		if (string[0] >= 128)
			continue;
		if (len > 1 && string[1] >= 128)
			table->flags[string[0]] |= RADIK_ICU_STARTER;
		else
			table->flags[string[0]] = 0;
	}
	for (int c = 0; c < 128 && U_SUCCESS(status); c++)
	{
		if (uset_contains(expansions, c))
			table->flags[c] = 0;
	}
	if (contractions != NULL)
		uset_close(contractions);
	if (expansions != NULL)
		uset_close(expansions);
	return U_SUCCESS(status);
}

/*
 * Does the table make a key for the string of len bytes at s, and ICU's?  Where it makes none,
 * *made is false.
 */
static bool
table_key_equals(const UCollator *collator, const RadikIcuTable *table, const unsigned char *s,
				 int len, bool *made)
{
	uint64		key;

	*made = radik_icu_prefix(table, s, len, &key);
	return *made && key == icu_key_prefix(collator, s, len);
}

/* Do the table's keys equal ICU's for the string of len bytes at s, where it makes one? */
static bool
table_agrees(const UCollator *collator, const RadikIcuTable *table, const unsigned char *s,
			 int len)
{
	bool		made;

	return table_key_equals(collator, table, s, len, &made) || !made;
}

/*
 * Is character c's lead byte compressed?  The character written 12 times over tells: the table
 * makes ICU's key under one answer only (under the other a different key, or none, where
 * compressed 1-byte primaries would write too few bytes).
 */
static bool
learn_compression(const UCollator *collator, RadikIcuTable *table, unsigned char c)
{
	unsigned char same[12];
	bool		made;
	bool		plain;
	bool		compressed;

	memset(same, c, sizeof(same));
	table->flags[c] &= ~RADIK_ICU_COMPRESSIBLE;
	plain = table_key_equals(collator, table, same, sizeof(same), &made);
	table->flags[c] |= RADIK_ICU_COMPRESSIBLE;
	compressed = table_key_equals(collator, table, same, sizeof(same), &made);
	if (plain == compressed)
		return false;
	if (plain)
		table->flags[c] &= ~RADIK_ICU_COMPRESSIBLE;
	return true;
}

/*
 * Check the table against ICU: every ordered pair of its characters, alternating over 12 bytes,
 * and random strings of its characters (with a few other ASCII bytes among them).
 */
static bool
table_checks_out(const UCollator *collator, const RadikIcuTable *table)
{
	unsigned char simple[128];
	int			nsimple = 0;
	uint32		seed = 0x9E3779B9;

	for (int c = 0; c < 128; c++)
		if (table->flags[c] & RADIK_ICU_SIMPLE)
			simple[nsimple++] = (unsigned char) c;
	for (int i = 0; i < nsimple; i++)
	{
		for (int j = 0; j < nsimple; j++)
		{
			unsigned char pair[12];

			for (int k = 0; k < (int) sizeof(pair); k++)
				pair[k] = simple[k % 2 == 0 ? i : j];
			if (!table_agrees(collator, table, pair, sizeof(pair)))
				return false;
		}
	}
	for (int i = 0; i < RANDOM_CHECKS && nsimple > 0; i++)
	{
		unsigned char string[RANDOM_CHECK_LENGTH];
		int			len;

		seed = seed * 1664525 + 1013904223;
		len = 1 + (seed >> 8) % RANDOM_CHECK_LENGTH;
		for (int k = 0; k < len; k++)
		{
			seed = seed * 1664525 + 1013904223;
			string[k] = (seed >> 24) < 8 ? (unsigned char) ((seed >> 8) % 128) :
				simple[(seed >> 8) % nsimple];
		}
		if (!table_agrees(collator, table, string, len))
			return false;
	}
	return true;
}

/* Fill the zeroed table of collator; false where it has none. */
static bool
fill_table(const UCollator *collator, RadikIcuTable *table)
{
	UErrorCode status = U_ZERO_ERROR;
	bool		numeric = ucol_getAttribute(collator, UCOL_NUMERIC_COLLATION, &status) == UCOL_ON;

	if (U_FAILURE(status))
		return false;
	for (int c = 1; c < 128; c++)
	{
		table->primary[c] = icu_primary(collator, (unsigned char) c);
		if (table->primary[c] != 0 && !(numeric && c >= '0' && c <= '9'))
			table->flags[c] = RADIK_ICU_SIMPLE;
	}
	if (!drop_contractions(collator, table))
		return false;
	for (int c = 1; c < 128; c++)
	{
		if ((table->flags[c] & RADIK_ICU_SIMPLE) && !learn_compression(collator, table, c))
			table->flags[c] = 0;
	}
	for (int c = 1; c < 128; c++)
	{
		if (table->flags[c] == RADIK_ICU_SIMPLE && (table->primary[c] & 0x00FFFFFF) == 0)
			table->one_byte[c] = (uint8) (table->primary[c] >> 24);
	}
	return table_checks_out(collator, table);
}

/* The table of collator, or NULL where it has none; palloc'd in the current context. */
static RadikIcuTable *
make_table(const UCollator *collator)
{
	RadikIcuTable *table = palloc0(sizeof(RadikIcuTable));

	if (fill_table(collator, table))
		return table;
	pfree(table);
	return NULL;
}

/* The ICU collator of collation, or NULL where it is not an ICU collation or ICU is missing. */
static const UCollator *
collation_collator(Oid collation)
{
	pg_locale_t locale;

	if (GetDatabaseEncoding() != PG_UTF8 || !icu_available())
		return NULL;
	locale = pg_newlocale_from_collation(collation);
	if (locale == NULL || locale->provider != COLLPROVIDER_ICU)
		return NULL;
	return locale->info.icu.ucol;
}

/* The entry of collator, or NULL where none has been made. */
static IcuTableEntry *
find_entry(const UCollator *collator)
{
	for (IcuTableEntry *entry = icu_tables; entry != NULL; entry = entry->next)
		if (entry->collator == collator)
			return entry;
	return NULL;
}

/* A new entry for collator holding table, which lives in TopMemoryContext. */
static IcuTableEntry *
add_entry(const UCollator *collator, RadikIcuTable *table)
{
	IcuTableEntry *entry = MemoryContextAlloc(TopMemoryContext, sizeof(IcuTableEntry));

	entry->collator = collator;
	entry->table = table;
	entry->next = icu_tables;
	icu_tables = entry;
	return entry;
}

const RadikIcuTable *
radik_icu_table(Oid collation)
{
	const UCollator *collator = collation_collator(collation);
	IcuTableEntry *entry;
	MemoryContext caller;
	RadikIcuTable *table;

	if (collator == NULL)
		return NULL;
	entry = find_entry(collator);
	if (entry != NULL)
		return entry->table;
	caller = MemoryContextSwitchTo(TopMemoryContext);
	table = make_table(collator);
	MemoryContextSwitchTo(caller);
	return add_entry(collator, table)->table;
}

void
radik_icu_table_adopt(Oid collation, const RadikIcuTable *table)
{
	const UCollator *collator = collation_collator(collation);
	RadikIcuTable *copy;

	if (collator == NULL || find_entry(collator) != NULL)
		return;
	copy = MemoryContextAlloc(TopMemoryContext, sizeof(RadikIcuTable));
	memcpy(copy, table, sizeof(RadikIcuTable));
	add_entry(collator, copy);
}

#else							/* !RADIK_ICU_TABLES */

const RadikIcuTable *
radik_icu_table(Oid collation)
{
	return NULL;
}

void
radik_icu_table_adopt(Oid collation, const RadikIcuTable *table)
{
}

#endif							/* RADIK_ICU_TABLES */
