/*
 * radik_key_mapper.c
 *	  Engine keys for the sort key types that need state: text, varchar, char(n), bytea, uuid,
 *	  inet and cidr through PostgreSQL's abbreviated keys, enums through their sort order
 *	  (radik_key_mapper.h).
 *
 * Summary keys.  A string or a uuid does not fit in 64 bits, so its engine key is a monotone
 * summary, as numeric's is (radik_datum_keys.c): a < b gives key(a) <= key(b), and equal values
 * give equal keys.  Then the rows with the k smallest keys and every row tied with the k-th key
 * hold the k best values and every row equal to the k-th, and the scan sorts those candidates by
 * the type's own comparator.  The summary is the abbreviated key PostgreSQL's tuplesort itself
 * uses for the sort operator and collation: PrepareSortSupportFromOrderingOp with abbreviation
 * asked for gives an abbrev_converter, whose Datums compare as unsigned integers
 * (ssup_datum_unsigned_cmp; signed ones are mapped to unsigned order), so every collation is
 * PostgreSQL's business, and a collation or type PostgreSQL does not abbreviate is declined:
 *  - "C" (and POSIX, and any collation PostgreSQL treats as C) and bytea: the first 8 bytes of
 *    the value, big-endian (varstr_abbrev_convert); char(n) without its trailing spaces;
 *  - ICU collations: the first 8 bytes of the ICU sort key; libc collations other than C: the
 *    first 8 bytes of strxfrm(), but PostgreSQL abbreviates those only when built with
 *    TRUST_STRXFRM (15-17) or where pg_strxfrm_enabled says so (18), else radik declines;
 *  - uuid: its first 8 bytes, big-endian (uuid_abbrev_convert);
 *  - inet and cidr: the family, then the network bits, the netmask length and the first host
 *    bits that fit (network_abbrev_convert).
 * Equal values give equal abbreviated keys: under a deterministic collation equal strings are
 * equal bytes (for char(n), once the trailing spaces are cut, as the converter cuts them), and
 * under a nondeterministic (ICU) one strings that compare equal have the same ICU sort key, of
 * which the abbreviated key is a prefix.  The converter's cardinality estimate (abbrev_abort) is
 * a sort's heuristic for giving up on abbreviation and is never asked.
 *
 * For "C" and bytea, and for uuid, the mapper makes the same 8 bytes itself, without the
 * converter's bookkeeping (it hashes every value for its estimate): that is most of the time a
 * scan of a text key spends.  Under an ICU collation it makes them from the collation's table of
 * ASCII characters where the string allows (radik_icu_keys.h), and asks the converter for the
 * rest.  Whether PostgreSQL's converter agrees is checked once per mapper on a few probe values,
 * and where it does not, the converter is used.  Only the first 8 bytes of a compressed or
 * TOASTed text or bytea value are read (detoast_attr_slice).
 *
 * The converter keeps state between calls (its buffers, in the SortSupport's memory context),
 * so each mapper prepares its own, once per scan, in each parallel worker too; what a call
 * allocates and does not free goes into a context reset after every page of rows.  NULLs never
 * reach a mapper.
 *
 * Enums are ordered by pg_enum.enumsortorder, not by their OIDs: the mapper reads the type's
 * labels once, ranks them by sort order, and looks each value's OID up among them.
 */
#include "postgres.h"

#include "radik_compat.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/uuid.h"

#include "radik_icu_keys.h"
#include "radik_key_mapper.h"

/* Conversions between two resets of the conversion context, one value at a time. */
#define CONVERSIONS_PER_RESET 1024

/*
 * The types whose abbreviated keys are a monotone summary (the header); varchar sorts as text,
 * cidr as inet.
 */
static bool
abbreviated_type(Oid type)
{
	return type == TEXTOID || type == BPCHAROID || type == BYTEAOID || type == UUIDOID ||
		type == INETOID || type == CIDROID;
}

/*
 * Does PostgreSQL compare strings of this collation as "C" does (memcmp)?  utils/pg_locale.h,
 * which answers it, includes ICU's headers in a server built with ICU, which a machine building
 * extensions need not have: 15 to 17 export lc_collate_is_c, declared here; for 18 the catalogs
 * answer for the "C" collation and a database whose libc collation is "C" or "POSIX"
 * (where they answer no, the mapper uses PostgreSQL's converter: slower, as exact).
 */
#if PG_VERSION_NUM < 180000
extern bool lc_collate_is_c(Oid collation);
#endif

static bool
collation_is_c(Oid collation)
{
#if PG_VERSION_NUM >= 180000
	HeapTuple	tuple;
	bool		is_c = false;

	if (collation == C_COLLATION_OID)
		return true;
	if (collation != DEFAULT_COLLATION_OID)
		return false;
	tuple = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
	if (HeapTupleIsValid(tuple))
	{
		Form_pg_database database = (Form_pg_database) GETSTRUCT(tuple);
		bool		isnull;
		Datum		collate = SysCacheGetAttr(DATABASEOID, tuple, Anum_pg_database_datcollate,
											  &isnull);

		if (database->datlocprovider == COLLPROVIDER_LIBC && !isnull)
			is_c = strcmp(TextDatumGetCString(collate), "C") == 0 ||
				strcmp(TextDatumGetCString(collate), "POSIX") == 0;
		ReleaseSysCache(tuple);
	}
	return is_c;
#else
	return lc_collate_is_c(collation);
#endif
}

/*
 * Prepare ssup, abbreviating, for sort_operator under collation, in context.  Returns the
 * signedness of its abbreviated Datums (see RadikKeyMapper), or -1 where it has no
 * abbreviated keys.
 */
static int
prepare_abbreviation(SortSupport ssup, Oid sort_operator, Oid collation, MemoryContext context)
{
	memset(ssup, 0, sizeof(SortSupportData));
	ssup->ssup_cxt = context;
	ssup->ssup_collation = collation;
	ssup->ssup_nulls_first = false;
	ssup->abbreviate = true;
	PrepareSortSupportFromOrderingOp(sort_operator, ssup);
	if (ssup->abbrev_converter == NULL)
		return -1;
	if (ssup->comparator == ssup_datum_unsigned_cmp)
		return 0;
#if SIZEOF_DATUM >= 8
	if (ssup->comparator == ssup_datum_signed_cmp)
		return 1;
#endif
	if (ssup->comparator == ssup_datum_int32_cmp)
		return 2;
	return -1;
}

bool
radik_key_type_needs_mapper(Oid type)
{
	return !radik_key_type_supported(type);
}

bool
radik_key_orderable(Oid type, Oid collation, Oid sort_operator, const char **reason)
{
	MemoryContext context;
	MemoryContext caller;
	SortSupportData ssup;
	int			signedness;

	if (radik_key_type_supported(type) || type_is_enum(type))
		return true;
	if (!abbreviated_type(type))
	{
		if (reason)
			*reason = psprintf("radik does not order values of type %s", format_type_be(type));
		return false;
	}
	if (type_is_collatable(type) && !OidIsValid(collation))
	{
		if (reason)
			*reason = psprintf("no collation for the sort key of type %s", format_type_be(type));
		return false;
	}

	context = AllocSetContextCreate(CurrentMemoryContext, "radik sort support check",
									ALLOCSET_SMALL_SIZES);
	caller = MemoryContextSwitchTo(context);
	signedness = prepare_abbreviation(&ssup, sort_operator, collation, context);
	MemoryContextSwitchTo(caller);
	MemoryContextDelete(context);
	if (signedness < 0)
	{
		if (reason)
			*reason = psprintf("PostgreSQL has no abbreviated keys for type %s under collation %s "
							   "(libc collations other than C are abbreviated only where "
							   "PostgreSQL trusts strxfrm)",
							   format_type_be(type),
							   OidIsValid(collation) ? get_collation_name(collation) : "none");
		return false;
	}
	return true;
}

/* A string's first 8 bytes, big-endian (char(n): without its trailing spaces). */
static pg_attribute_always_inline uint64
prefix_key(const char *data, int len, bool bpchar)
{
	uint64		prefix = 0;

	if (bpchar)
		len = bpchartruelen((char *) data, len);
	if (len >= (int) sizeof(prefix))
		memcpy(&prefix, data, sizeof(prefix));
	else
		memcpy(&prefix, data, len);
	return pg_ntoh64(prefix);
}

/* A text or bytea value's key under "C", reading only what it needs of a TOASTed value. */
static pg_attribute_always_inline uint64
bytes_key(Datum value, bool bpchar)
{
	struct varlena *stored = (struct varlena *) DatumGetPointer(value);
	struct varlena *plain;
	uint64		key;

	if (likely(!VARATT_IS_EXTERNAL(stored) && !VARATT_IS_COMPRESSED(stored)))
		return prefix_key(VARDATA_ANY(stored), VARSIZE_ANY_EXHDR(stored), bpchar);
	/* char(n) needs its whole value: its trailing spaces may run past the first 8 bytes */
	plain = bpchar ? detoast_attr(stored) : detoast_attr_slice(stored, 0, sizeof(uint64));
	key = prefix_key(VARDATA_ANY(plain), VARSIZE_ANY_EXHDR(plain), bpchar);
	pfree(plain);
	return key;
}

static pg_attribute_always_inline uint64
uuid_key(Datum value)
{
	uint64		prefix;

	memcpy(&prefix, DatumGetUUIDP(value)->data, sizeof(prefix));
	return pg_ntoh64(prefix);
}

/* The abbreviated Datum as an unsigned key of the same order. */
static inline uint64
abbreviated_key(RadikKeyMapper *mapper, Datum value)
{
	MemoryContext caller = MemoryContextSwitchTo(mapper->convert_context);
	Datum		abbreviated = mapper->ssup.abbrev_converter(value, &mapper->ssup);

	MemoryContextSwitchTo(caller);
	switch (mapper->abbrev_signedness)
	{
		case 1:
			return (uint64) abbreviated ^ (UINT64CONST(1) << 63);
		case 2:
			return (uint32) DatumGetInt32(abbreviated) ^ UINT64CONST(0x80000000);
		default:
			return (uint64) abbreviated;
	}
}

/*
 * A text value's key under an ICU collation: from the collation's table where the value is a
 * plain (not compressed, not TOASTed) string it covers, else from the converter.
 */
static inline uint64
icu_key(RadikKeyMapper *mapper, Datum value)
{
	struct varlena *stored = (struct varlena *) DatumGetPointer(value);
	uint64		key;

	if (likely(!VARATT_IS_EXTERNAL(stored) && !VARATT_IS_COMPRESSED(stored)))
	{
		const char *data = VARDATA_ANY(stored);
		int			len = VARSIZE_ANY_EXHDR(stored);

		if (mapper->bpchar)
			len = bpchartruelen((char *) data, len);
		if (radik_icu_prefix(mapper->icu, (const unsigned char *) data, len, &key))
			return key;
	}
	key = abbreviated_key(mapper, value);
	mapper->icu_conversions++;
	if (++mapper->conversions % CONVERSIONS_PER_RESET == 0)
		MemoryContextReset(mapper->convert_context);
	return key;
}

/* Read the enum's labels and rank them by their sort order. */
static int
compare_sort_orders(const void *a, const void *b)
{
	const float4 *x = a;
	const float4 *y = b;

	return (x[1] > y[1]) - (x[1] < y[1]);
}

static int
compare_labels(const void *a, const void *b)
{
	Oid			x = ((const RadikEnumRank *) a)->label;
	Oid			y = ((const RadikEnumRank *) b)->label;

	return (x > y) - (x < y);
}

static void
load_enum_ranks(RadikKeyMapper *mapper)
{
	CatCList   *list = SearchSysCacheList1(ENUMTYPOIDNAME, ObjectIdGetDatum(mapper->enum_type));
	/* (label OID, sort order) pairs, as two float4-sized words */
	float4	   *pairs = palloc(Max(list->n_members, 1) * 2 * sizeof(float4));

	StaticAssertStmt(sizeof(Oid) == sizeof(float4), "a label OID fills a float4's place");
	for (int i = 0; i < list->n_members; i++)
	{
		Form_pg_enum label = (Form_pg_enum) GETSTRUCT(&list->members[i]->tuple);

		memcpy(&pairs[2 * i], &label->oid, sizeof(Oid));
		pairs[2 * i + 1] = label->enumsortorder;
	}
	qsort(pairs, list->n_members, 2 * sizeof(float4), compare_sort_orders);
	if (mapper->ranks != NULL)
		pfree(mapper->ranks);
	mapper->nranks = list->n_members;
	mapper->ranks = palloc(Max(mapper->nranks, 1) * sizeof(RadikEnumRank));
	for (int i = 0; i < mapper->nranks; i++)
	{
		memcpy(&mapper->ranks[i].label, &pairs[2 * i], sizeof(Oid));
		mapper->ranks[i].rank = (uint32) i;
	}
	qsort(mapper->ranks, mapper->nranks, sizeof(RadikEnumRank), compare_labels);
	pfree(pairs);
	ReleaseSysCacheList(list);
}

static uint64
enum_key(RadikKeyMapper *mapper, Datum value)
{
	RadikEnumRank wanted;
	RadikEnumRank *found;

	wanted.label = DatumGetObjectId(value);
	found = bsearch(&wanted, mapper->ranks, mapper->nranks, sizeof(RadikEnumRank),
					compare_labels);
	if (found == NULL)
	{
		/* a label added since the ranks were read: read them again, as enum_cmp would */
		load_enum_ranks(mapper);
		found = bsearch(&wanted, mapper->ranks, mapper->nranks, sizeof(RadikEnumRank),
						compare_labels);
		if (found == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid internal value for enum: %u", wanted.label)));
	}
	return mapper->descending ? (uint32) ~found->rank : found->rank;
}

/*
 * Does the mapper's own key (RADIK_KEY_BYTES, RADIK_KEY_UUID or RADIK_KEY_ICU) agree with
 * PostgreSQL's converter, prepared in ssup, on a few values that tell byte order from any
 * collation's?
 */
static bool
own_keys_agree(RadikKeyMapper *mapper)
{
	static const char *const probes[] = {"", "a", "B", "radik k", "radik key", "Zz  ", "zZ",
		"radik keys 0123", "RADIK_KEYS-4567", "lLlLlLlLlL"};

	if (mapper->kind == RADIK_KEY_UUID)
	{
		pg_uuid_t	probe;

		for (int i = 0; i < UUID_LEN; i++)
			probe.data[i] = (unsigned char) (0xF1 - 17 * i);
		return uuid_key(UUIDPGetDatum(&probe)) == abbreviated_key(mapper, UUIDPGetDatum(&probe));
	}
	for (int i = 0; i < lengthof(probes); i++)
	{
		Datum		probe = PointerGetDatum(cstring_to_text(probes[i]));
		uint64		own = mapper->kind == RADIK_KEY_ICU ? icu_key(mapper, probe) :
			bytes_key(probe, mapper->bpchar);

		if (own != abbreviated_key(mapper, probe))
			return false;
	}
	return true;
}

double
radik_summary_tie_share(void *root, const RadikSortKey *key, Node *expr)
{
	VariableStatData vardata;
	AttStatsSlot sslot;
	double		share = 0.0;

	if (!radik_key_type_needs_mapper(key->type) || type_is_enum(key->type))
		return 0.0;
	examine_variable((PlannerInfo *) root, expr, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple) &&
		get_attstatsslot(&sslot, vardata.statsTuple, STATISTIC_KIND_HISTOGRAM, InvalidOid,
						 ATTSTATSSLOT_VALUES))
	{
		if (sslot.nvalues > 1)
		{
			RadikKeyMapper mapper;
			uint64		best;
			int			tied = 0;

			/* the bounds are in ascending order: the best key is the first's, or the last's */
			radik_key_mapper_init(&mapper, key);
			best = radik_mapper_key(&mapper, sslot.values[key->descending ? sslot.nvalues - 1 : 0]);
			for (int i = 0; i < sslot.nvalues; i++)
				tied += radik_mapper_key(&mapper, sslot.values[i]) == best;
			share = (double) (tied - 1) / (sslot.nvalues - 1);
		}
		free_attstatsslot(&sslot);
	}
	ReleaseVariableStats(vardata);
	return share;
}

int
radik_key_bytes(const RadikSortKey *key)
{
	int			key_bytes;

	if (!radik_key_type_needs_mapper(key->type))
		(void) radik_key_map(key->type, key->descending, &key_bytes);
	else
		key_bytes = type_is_enum(key->type) ? 4 : 8;
	return key_bytes;
}

void
radik_key_mapper_init(RadikKeyMapper *mapper, const RadikSortKey *key)
{
	memset(mapper, 0, sizeof(*mapper));
	mapper->descending = key->descending;
	if (!radik_key_type_needs_mapper(key->type))
	{
		mapper->kind = RADIK_KEY_PLAIN;
		mapper->map = radik_key_map(key->type, key->descending, &mapper->key_bytes);
		mapper->map_many = radik_key_map_many(key->type, key->descending);
		return;
	}
	if (type_is_enum(key->type))
	{
		mapper->kind = RADIK_KEY_ENUM;
		mapper->key_bytes = 4;
		mapper->enum_type = key->type;
		load_enum_ranks(mapper);
		return;
	}
	if (!abbreviated_type(key->type))
		elog(ERROR, "radik cannot order values of type %u", key->type);

	mapper->key_bytes = 8;
	mapper->convert_context = AllocSetContextCreate(CurrentMemoryContext, "radik key conversion",
													ALLOCSET_DEFAULT_SIZES);
	mapper->abbrev_signedness = prepare_abbreviation(&mapper->ssup, key->sort_operator,
													 key->collation, CurrentMemoryContext);
	if (mapper->abbrev_signedness < 0)
		elog(ERROR, "radik: no abbreviated keys for type %u under collation %u",
			 key->type, key->collation);

	mapper->kind = RADIK_KEY_ABBREVIATED;
	if (key->type == UUIDOID)
		mapper->kind = RADIK_KEY_UUID;
	else if (key->type == BYTEAOID || collation_is_c(key->collation))
	{
		mapper->kind = RADIK_KEY_BYTES;
		mapper->bpchar = key->type == BPCHAROID;
	}
	else if ((mapper->icu = radik_key_icu_table(key)) != NULL)
	{
		mapper->kind = RADIK_KEY_ICU;
		mapper->bpchar = key->type == BPCHAROID;
	}
	if (mapper->kind != RADIK_KEY_ABBREVIATED &&
		(mapper->abbrev_signedness != 0 || !own_keys_agree(mapper)))
		mapper->kind = RADIK_KEY_ABBREVIATED;
	MemoryContextReset(mapper->convert_context);
	mapper->icu_conversions = 0;	/* the probes' */
}

const RadikIcuTable *
radik_key_icu_table(const RadikSortKey *key)
{
	if ((key->type != TEXTOID && key->type != BPCHAROID) || collation_is_c(key->collation))
		return NULL;
	return radik_icu_table(key->collation);
}

uint64
radik_key_mapper_one(RadikKeyMapper *mapper, Datum value)
{
	uint64		key;

	switch (mapper->kind)
	{
		case RADIK_KEY_BYTES:
			key = bytes_key(value, mapper->bpchar);
			break;
		case RADIK_KEY_UUID:
			key = uuid_key(value);
			break;
		case RADIK_KEY_ICU:
			key = icu_key(mapper, value);
			break;
		case RADIK_KEY_ENUM:
			return enum_key(mapper, value);
		case RADIK_KEY_ABBREVIATED:
			key = abbreviated_key(mapper, value);
			if (++mapper->conversions % CONVERSIONS_PER_RESET == 0)
				MemoryContextReset(mapper->convert_context);
			break;
		default:
			return mapper->map(value);
	}
	return mapper->descending ? ~key : key;
}

void
radik_key_mapper_many(RadikKeyMapper *mapper, Datum *values, int n, uint64 *keys)
{
	const uint64 flip = mapper->descending ? PG_UINT64_MAX : 0;

	switch (mapper->kind)
	{
		case RADIK_KEY_BYTES:
			if (mapper->bpchar)
				for (int i = 0; i < n; i++)
					keys[i] = bytes_key(values[i], true) ^ flip;
			else
				for (int i = 0; i < n; i++)
					keys[i] = bytes_key(values[i], false) ^ flip;
			break;
		case RADIK_KEY_UUID:
			for (int i = 0; i < n; i++)
				keys[i] = uuid_key(values[i]) ^ flip;
			break;
		case RADIK_KEY_ICU:
			for (int i = 0; i < n; i++)
				keys[i] = icu_key(mapper, values[i]) ^ flip;
			break;
		case RADIK_KEY_ENUM:
			for (int i = 0; i < n; i++)
				keys[i] = enum_key(mapper, values[i]);
			break;
		case RADIK_KEY_ABBREVIATED:
			for (int i = 0; i < n; i++)
				keys[i] = abbreviated_key(mapper, values[i]) ^ flip;
			MemoryContextReset(mapper->convert_context);
			break;
		default:
			mapper->map_many(values, n, keys);
			break;
	}
}
