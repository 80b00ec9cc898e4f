/*
 * radik_datum_keys.c
 *	  Which PostgreSQL types radik can order, and the map from their values to engine keys.
 *
 * Every supported type is a fixed-width, pass-by-value number underneath (date is an int32 day
 * count; time, timestamp and timestamptz are int64 microsecond counts), and its default btree
 * order is the numeric order of that number, with the float rules (-0 = +0, NaN equal to itself
 * and above +Infinity) that cuda/radik_keys.h folds in.  So a key is the bit-level map of the
 * number, complemented for a descending sort.  NULLs never reach these maps: the scan keeps NULL
 * rows aside and places them first or last itself.
 *
 * The maps are chosen once per selection (radik_key_map) and called per row through a pointer,
 * or per page of rows (radik_key_map_many).
 * The inverse (radik_datum_from_key) lets the custom scan return a selected key's value without
 * fetching its row, when the key column is all the query reads.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"

#include "radik_datum_keys.h"
#include "radik_keys.h"
#include "radik_select.h"

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
			return true;
		default:
			return false;
	}
}

const char *
radik_supported_type_names(void)
{
	return "smallint, integer, bigint, real, double precision, date, "
		"time without time zone, timestamp without time zone, timestamp with time zone";
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
			*key_bytes = 8;
			return descending ? key_int8_desc : key_int8_asc;
		case FLOAT4OID:
			*key_bytes = 4;
			return descending ? key_float4_desc : key_float4_asc;
		case FLOAT8OID:
			*key_bytes = 8;
			return descending ? key_float8_desc : key_float8_asc;
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
			return descending ? key_int8_desc_many : key_int8_asc_many;
		case FLOAT4OID:
			return descending ? key_float4_desc_many : key_float4_asc_many;
		case FLOAT8OID:
			return descending ? key_float8_desc_many : key_float8_asc_many;
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
			key = descending ? radik_key64_descending(key) : key;
			return Int64GetDatum(radik_int64_from_key(key));
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
