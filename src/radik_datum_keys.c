/*
 * radik_datum_keys.c
 *	  Which PostgreSQL types radik can order, and the map from their values to engine keys.
 *
 * Every type here but numeric and interval is a fixed-width, pass-by-value number underneath
 * (date is an int32 day count; time, timestamp and timestamptz are int64 microsecond counts,
 * money an int64 count of cents; bool is 0 or 1, oid an unsigned int32, "char" one byte that its
 * btree operators compare as unsigned char: charlt in src/backend/utils/adt/char.c), and its
 * default btree order is the numeric order of that number, with the float rules (-0 = +0, NaN
 * equal to itself and above +Infinity) that cuda/radik_keys.h folds in.  So a key is the
 * bit-level map of the number, complemented for a descending sort.  NULLs never reach these
 * maps: the scan keeps NULL rows aside and places them first or last itself.  Domains over these
 * types are ordered as the type underneath (the planner and radik_topk() pass the base type).
 *
 * numeric is an exception: a variable-length decimal that no 64-bit key holds exactly.  Its key
 * is a monotone summary (sign, weight and the first three base-10000 digits, that is 9 to 12
 * significant decimal digits, the rest cut off): a < b gives key(a) <= key(b), and equal values
 * equal keys.  So the rows with the k smallest keys and every row tied with the k-th key hold the
 * k smallest values and every row equal to the k-th value; the custom scan selects those and
 * sorts them with numeric's own comparator (radik_key_type_exact says which types need it).
 * interval is the other: its 128-bit span is cut to 63 bits (interval_key below).
 *
 * The maps are chosen once per selection (radik_key_map) and called per row through a pointer,
 * or per page of rows (radik_key_map_many).  These maps need no state, so they serve every
 * caller (the extractor, BRIN bounds, grouping by key bits); the keys that need state of their
 * own (text, bytea, uuid through PostgreSQL's abbreviated keys, enums through their sort order)
 * are made by radik_key_mapper.c, around these.
 * The inverse (radik_datum_from_key) lets the custom scan return a selected key's value without
 * fetching its row, when the key column is all the query reads.
 */
#include "postgres.h"

#include "radik_compat.h"
#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/timestamp.h"

#include "radik_datum_keys.h"
#include "radik_keys.h"

/*
 * Each map once for one value (RadikKeyMap) and once for many (RadikKeyMapMany): KEY_MAP(name,
 * expression of value) defines key_<name>(Datum) and key_<name>_many(values, n, keys).
 */
#define KEY_MAP(name, expr) \
static uint64 \
key_##name(Datum value) \
{ \
	return (expr); \
} \
static void \
key_##name##_many(Datum *values, int n, uint64 *keys) \
{ \
	for (int i = 0; i < n; i++) \
	{ \
		Datum		value = values[i]; \
\
		keys[i] = (expr); \
	} \
}

KEY_MAP(int2_asc, radik_key_from_int16(DatumGetInt16(value)))
KEY_MAP(int2_desc, radik_key32_descending(radik_key_from_int16(DatumGetInt16(value))))
KEY_MAP(int4_asc, radik_key_from_int32(DatumGetInt32(value)))
KEY_MAP(int4_desc, radik_key32_descending(radik_key_from_int32(DatumGetInt32(value))))
KEY_MAP(int8_asc, radik_key_from_int64(DatumGetInt64(value)))
KEY_MAP(int8_desc, radik_key64_descending(radik_key_from_int64(DatumGetInt64(value))))
/* float4 on the Datum's bits (what DatumGetFloat4 reinterprets), without a branch */
KEY_MAP(float4_asc, radik_key_from_float4_bits((uint32) DatumGetInt32(value)))
KEY_MAP(float4_desc, radik_key32_descending(radik_key_from_float4_bits((uint32) DatumGetInt32(value))))
KEY_MAP(float8_asc, radik_key_from_float8(DatumGetFloat8(value)))
KEY_MAP(float8_desc, radik_key64_descending(radik_key_from_float8(DatumGetFloat8(value))))
KEY_MAP(bool_asc, radik_key_from_bool(DatumGetBool(value)))
KEY_MAP(bool_desc, radik_key32_descending(radik_key_from_bool(DatumGetBool(value))))
KEY_MAP(oid_asc, radik_key_from_uint32(DatumGetObjectId(value)))
KEY_MAP(oid_desc, radik_key32_descending(radik_key_from_uint32(DatumGetObjectId(value))))
/* "char" as unsigned char, as charlt compares */
KEY_MAP(char_asc, radik_key_from_uint32((uint8) DatumGetChar(value)))
KEY_MAP(char_desc, radik_key32_descending(radik_key_from_uint32((uint8) DatumGetChar(value))))

/*
 * numeric's stored form (src/backend/utils/adt/numeric.c, the same on disk since 9.1): after the
 * varlena header a 16-bit header word, then in the long form a 16-bit weight, then base-10000
 * digits (int16), normalized (no leading or trailing zero digits; zero has none).  The header's
 * top bits: 0x8000 short form (sign in 0x2000, weight in the low 6 bits, 0x0040 its sign),
 * 0x4000 negative long form, 0xC000 special: NaN 0xC000, +Infinity 0xD000, -Infinity 0xF000.
 */
#define NUMERIC_KEY_SPECIAL		0xC000
#define NUMERIC_KEY_SHORT		0x8000
#define NUMERIC_KEY_NEG			0x4000
#define NUMERIC_KEY_EXT_MASK	0xF000
#define NUMERIC_KEY_PINF		0xD000
#define NUMERIC_KEY_NINF		0xF000
#define NUMERIC_KEY_SHORT_NEG	0x2000
#define NUMERIC_KEY_SHORT_WEIGHT_NEG	0x0040
#define NUMERIC_KEY_SHORT_WEIGHT_MASK	0x003F
#define NUMERIC_KEY_DIGITS		3		/* leading base-10000 digits in a key */

/*
 * The ascending key of a numeric's stored bytes (after the varlena header): -Infinity 0, the
 * negative values below 2^62 (larger magnitude, smaller key), zero 2^62, the positive values
 * above it, +Infinity 2^63, NaN the largest key, as numeric's btree order has them.  The
 * magnitude is (weight + 32768) << 42 | three 14-bit digits, below 2^58.
 */
static uint64
numeric_bytes_key(const char *data, Size len)
{
	uint16		header;
	int			weight;
	bool		negative;
	int			first;
	int			ndigits;
	uint64		magnitude;

	memcpy(&header, data, sizeof(header));
	if ((header & NUMERIC_KEY_SPECIAL) == NUMERIC_KEY_SPECIAL)
	{
		if ((header & NUMERIC_KEY_EXT_MASK) == NUMERIC_KEY_PINF)
			return UINT64CONST(1) << 63;
		if ((header & NUMERIC_KEY_EXT_MASK) == NUMERIC_KEY_NINF)
			return 0;
		return PG_UINT64_MAX;	/* NaN */
	}
	if (header & NUMERIC_KEY_SHORT)
	{
		negative = (header & NUMERIC_KEY_SHORT_NEG) != 0;
		weight = (header & NUMERIC_KEY_SHORT_WEIGHT_MASK) |
			((header & NUMERIC_KEY_SHORT_WEIGHT_NEG) ? ~NUMERIC_KEY_SHORT_WEIGHT_MASK : 0);
		first = sizeof(uint16);
	}
	else
	{
		int16		long_weight;

		negative = (header & NUMERIC_KEY_SPECIAL) == NUMERIC_KEY_NEG;
		memcpy(&long_weight, data + sizeof(uint16), sizeof(long_weight));
		weight = long_weight;
		first = 2 * sizeof(uint16);
	}
	ndigits = (int) (len - first) / (int) sizeof(int16);

	/* Skip leading zero digits, should a value ever be stored unnormalized. */
	for (;;)
	{
		int16		digit;

		if (ndigits == 0)
			return UINT64CONST(1) << 62;	/* zero */
		memcpy(&digit, data + first, sizeof(digit));
		if (digit != 0)
			break;
		first += sizeof(int16);
		ndigits--;
		weight--;
	}
	magnitude = (uint64) (weight + 32768) & 0xFFFF;
	for (int i = 0; i < NUMERIC_KEY_DIGITS; i++)
	{
		int16		digit = 0;

		if (i < ndigits)
			memcpy(&digit, data + first + i * sizeof(int16), sizeof(digit));
		magnitude = magnitude << 14 | (uint64) (digit & 0x3FFF);
	}
	return negative ? (UINT64CONST(1) << 62) - 1 - magnitude :
		(UINT64CONST(1) << 62) + 1 + magnitude;
}

/* A numeric Datum's key: its bytes read in place, detoasted only when compressed or external. */
static inline uint64
numeric_key(Datum value)
{
	struct varlena *stored = (struct varlena *) DatumGetPointer(value);
	struct varlena *plain = pg_detoast_datum_packed(stored);
	uint64		key = numeric_bytes_key(VARDATA_ANY(plain), VARSIZE_ANY_EXHDR(plain));

	if (plain != stored)
		pfree(plain);
	return key;
}

KEY_MAP(numeric_asc, numeric_key(value))
KEY_MAP(numeric_desc, radik_key64_descending(numeric_key(value)))

/*
 * interval's btree order is the order of its span in microseconds, months counted as 30 days
 * (interval_cmp_value in src/backend/utils/adt/timestamp.c), a 128-bit number of up to 73 bits.
 * Its key is that span divided by 2^11, rounded down, which fits in 63 bits: a day is 2^11 *
 * 42187500 microseconds, so the days' part divides exactly and only the time field is rounded.
 * A monotone summary, as numeric's is: spans less than about 2 ms apart may share a key.
 */
#define INTERVAL_KEY_SHIFT 11
#define INTERVAL_KEY_DAY (USECS_PER_DAY >> INTERVAL_KEY_SHIFT)

static inline uint64
interval_key(Datum value)
{
	const Interval *interval = DatumGetIntervalP(value);
	int64		days = interval->month * INT64CONST(30) + interval->day;
	int64		time = interval->time;
	/* time / 2^11 rounded down, for negative times too */
	int64		time_part = time >= 0 ? time >> INTERVAL_KEY_SHIFT :
		-((-(time + 1)) >> INTERVAL_KEY_SHIFT) - 1;

	StaticAssertStmt(INTERVAL_KEY_DAY << INTERVAL_KEY_SHIFT == USECS_PER_DAY,
					 "a day is a whole number of key units");
	return radik_key_from_int64(days * INTERVAL_KEY_DAY + time_part);
}

KEY_MAP(interval_asc, interval_key(value))
KEY_MAP(interval_desc, radik_key64_descending(interval_key(value)))

bool
radik_key_type_supported(Oid type)
{
	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case DATEOID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case NUMERICOID:
		case INTERVALOID:
		case BOOLOID:
		case OIDOID:
		case CHAROID:
		case CASHOID:
			return true;
		default:
			return false;
	}
}

bool
radik_key_type_exact(Oid type)
{
	return type != NUMERICOID && type != INTERVALOID && radik_key_type_supported(type);
}

bool
radik_keys_sort_candidates(int nkeys, Oid first_type)
{
	return nkeys > 1 || !radik_key_type_exact(first_type);
}

const char *
radik_supported_type_names(void)
{
	return "smallint, integer, bigint, real, double precision, date, "
		"time without time zone, timestamp without time zone, timestamp with time zone, "
		"boolean, oid, \"char\", money, numeric, interval, text, varchar, char(n), bytea, uuid, "
		"inet, cidr, enums, and domains over these";
}

RadikKeyMap
radik_key_map(Oid type, bool descending, int *key_bytes)
{
	switch (type)
	{
		case INT2OID:
			*key_bytes = 4;
			return descending ? key_int2_desc : key_int2_asc;
		case INT4OID:
		case DATEOID:
			*key_bytes = 4;
			return descending ? key_int4_desc : key_int4_asc;
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case CASHOID:
			*key_bytes = 8;
			return descending ? key_int8_desc : key_int8_asc;
		case BOOLOID:
			*key_bytes = 4;
			return descending ? key_bool_desc : key_bool_asc;
		case OIDOID:
			*key_bytes = 4;
			return descending ? key_oid_desc : key_oid_asc;
		case CHAROID:
			*key_bytes = 4;
			return descending ? key_char_desc : key_char_asc;
		case FLOAT4OID:
			*key_bytes = 4;
			return descending ? key_float4_desc : key_float4_asc;
		case FLOAT8OID:
			*key_bytes = 8;
			return descending ? key_float8_desc : key_float8_asc;
		case NUMERICOID:
			*key_bytes = 8;
			return descending ? key_numeric_desc : key_numeric_asc;
		case INTERVALOID:
			*key_bytes = 8;
			return descending ? key_interval_desc : key_interval_asc;
		default:
			elog(ERROR, "radik cannot order values of type %u", type);
			return NULL;		/* keep compiler quiet */
	}
}

RadikKeyMapMany
radik_key_map_many(Oid type, bool descending)
{
	switch (type)
	{
		case INT2OID:
			return descending ? key_int2_desc_many : key_int2_asc_many;
		case INT4OID:
		case DATEOID:
			return descending ? key_int4_desc_many : key_int4_asc_many;
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case CASHOID:
			return descending ? key_int8_desc_many : key_int8_asc_many;
		case BOOLOID:
			return descending ? key_bool_desc_many : key_bool_asc_many;
		case OIDOID:
			return descending ? key_oid_desc_many : key_oid_asc_many;
		case CHAROID:
			return descending ? key_char_desc_many : key_char_asc_many;
		case FLOAT4OID:
			return descending ? key_float4_desc_many : key_float4_asc_many;
		case FLOAT8OID:
			return descending ? key_float8_desc_many : key_float8_asc_many;
		case NUMERICOID:
			return descending ? key_numeric_desc_many : key_numeric_asc_many;
		case INTERVALOID:
			return descending ? key_interval_desc_many : key_interval_asc_many;
		default:
			elog(ERROR, "radik cannot order values of type %u", type);
			return NULL;		/* keep compiler quiet */
	}
}

Datum
radik_datum_from_key(Oid type, bool descending, uint64 key, bool *exact)
{
	*exact = true;
	switch (type)
	{
		case INT2OID:
			key = descending ? radik_key32_descending((uint32) key) : key;
			return Int16GetDatum((int16) radik_int32_from_key((uint32) key));
		case INT4OID:
		case DATEOID:
			key = descending ? radik_key32_descending((uint32) key) : key;
			return Int32GetDatum(radik_int32_from_key((uint32) key));
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case CASHOID:
			key = descending ? radik_key64_descending(key) : key;
			return Int64GetDatum(radik_int64_from_key(key));
		case BOOLOID:
			key = descending ? radik_key32_descending((uint32) key) : key;
			return BoolGetDatum(key != 0);
		case OIDOID:
			key = descending ? radik_key32_descending((uint32) key) : key;
			return ObjectIdGetDatum((Oid) key);
		case CHAROID:
			key = descending ? radik_key32_descending((uint32) key) : key;
			return CharGetDatum((char) (uint8) key);
		case FLOAT4OID:
			{
				float		value;

				key = descending ? radik_key32_descending((uint32) key) : key;
				value = radik_float4_from_key((uint32) key);
				*exact = !(isnan(value) || value == 0.0f);
				return Float4GetDatum(value);
			}
		case FLOAT8OID:
			{
				double		value;

				key = descending ? radik_key64_descending(key) : key;
				value = radik_float8_from_key(key);
				*exact = !(isnan(value) || value == 0.0);
				return Float8GetDatum(value);
			}
		default:
			elog(ERROR, "radik cannot order values of type %u", type);
			return (Datum) 0;	/* keep compiler quiet */
	}
}
