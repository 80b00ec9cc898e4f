/*
 * radik_key_mapper.h
 *	  From a sort key's values to engine keys, for every key type radik orders: the stateless maps
 *	  of radik_datum_keys.h, and the keys that need state of their own.
 *
 * Text (and varchar), char(n), bytea and uuid have no 64-bit key that holds every value, so their
 * engine key is PostgreSQL's own abbreviated key for the sort operator and collation (the
 * SortSupport abbrev_converter that tuplesort uses): a monotone summary, whose ties at the cut
 * the scan resolves by sorting the candidates with the type's comparator, as for numeric.  An
 * enum's key is its value's rank in pg_enum.enumsortorder, read once per mapper.  The mapper
 * holds that state (the SortSupport, the enum ranks, a memory context) for one scan, in the
 * backend and in each parallel worker: every process makes its own, and all of them make the
 * same keys, so the running k-th key they share means the same everywhere.
 */
#ifndef RADIK_KEY_MAPPER_H
#define RADIK_KEY_MAPPER_H

#include "postgres.h"

#include "utils/sortsupport.h"

#include "radik_datum_keys.h"
#include "radik_heap.h"

/* How a mapper makes its keys. */
typedef enum RadikKeyKind
{
	RADIK_KEY_PLAIN,			/* a stateless map of radik_datum_keys.h */
	RADIK_KEY_BYTES,			/* text, bytea under "C": the first 8 bytes, as abbreviated */
	RADIK_KEY_UUID,				/* uuid: its first 8 bytes, as uuid_abbrev_convert makes them */
	RADIK_KEY_ICU,				/* an ICU collation: its ASCII table, else the converter */
	RADIK_KEY_ABBREVIATED,		/* any other collation: PostgreSQL's abbrev_converter */
	RADIK_KEY_ENUM				/* an enum: the rank of its sort order */
} RadikKeyKind;

/* One enum label's OID and its rank in the type's order. */
typedef struct RadikEnumRank
{
	Oid			label;
	uint32		rank;
} RadikEnumRank;

typedef struct RadikKeyMapper
{
	RadikKeyKind kind;
	bool		descending;
	int			key_bytes;		/* 4 or 8 */
	RadikKeyMap map;			/* RADIK_KEY_PLAIN */
	RadikKeyMapMany map_many;
	bool		bpchar;			/* RADIK_KEY_BYTES, _ICU: char(n), whose trailing spaces do not
								 * count */
	const struct RadikIcuTable *icu;	/* RADIK_KEY_ICU */
	/* RADIK_KEY_ABBREVIATED, _ICU: the sort support, and how its abbreviated Datums compare */
	SortSupportData ssup;
	int			abbrev_signedness;	/* 0 unsigned, 1 signed 64-bit, 2 signed 32-bit */
	MemoryContext convert_context;	/* the converter runs in it; reset after every page */
	uint64		conversions;	/* one value at a time, since the last reset */
	int64		icu_conversions;	/* RADIK_KEY_ICU: values the table did not cover */
	/* RADIK_KEY_ENUM */
	Oid			enum_type;
	RadikEnumRank *ranks;		/* by label OID */
	int			nranks;
} RadikKeyMapper;

/*
 * Can radik order values of type (a base type, not a domain) by sort_operator under collation?
 * When not, *reason (if given) says why, for the planner's DEBUG1 message.
 */
extern bool radik_key_orderable(Oid type, Oid collation, Oid sort_operator, const char **reason);

/*
 * Do values of this type need the sort support or enum state of a mapper (not a stateless map of
 * radik_datum_keys.h)?
 */
extern bool radik_key_type_needs_mapper(Oid type);

/*
 * For a key whose engine key summarizes its values (text, bytea, uuid), the share of expr's rows
 * whose engine key ties with the best one, judged from expr's statistics histogram (0 without
 * one): values sharing their first 8 bytes make the rows tied at the cut, which the scan must
 * fetch and sort, many.  root is the planner's (a PlannerInfo *).
 */
extern double radik_summary_tie_share(void *root, const RadikSortKey *key, Node *expr);

/* The width of key's engine keys in bytes, 4 or 8, as its mapper makes them. */
extern int	radik_key_bytes(const RadikSortKey *key);

/*
 * Make the mapper of key (type, collation, sort operator, direction), its state allocated in the
 * current memory context.
 */
extern void radik_key_mapper_init(RadikKeyMapper *mapper, const RadikSortKey *key);

/*
 * The ICU table (radik_icu_keys.h) a mapper of key would use, or NULL where it would use none:
 * a parallel leader hands it to its workers.
 */
extern const struct RadikIcuTable *radik_key_icu_table(const RadikSortKey *key);

/* The non-plain kinds, one value at a time or a page at a time (radik_key_mapper.c). */
extern uint64 radik_key_mapper_one(RadikKeyMapper *mapper, Datum value);
extern void radik_key_mapper_many(RadikKeyMapper *mapper, Datum *values, int n, uint64 *keys);

/* One non-NULL value's engine key. */
static inline uint64
radik_mapper_key(RadikKeyMapper *mapper, Datum value)
{
	if (likely(mapper->kind == RADIK_KEY_PLAIN))
		return mapper->map(value);
	return radik_key_mapper_one(mapper, value);
}

/* n non-NULL values' engine keys. */
static inline void
radik_mapper_keys(RadikKeyMapper *mapper, Datum *values, int n, uint64 *keys)
{
	if (likely(mapper->kind == RADIK_KEY_PLAIN))
		mapper->map_many(values, n, keys);
	else
		radik_key_mapper_many(mapper, values, n, keys);
}

#endif							/* RADIK_KEY_MAPPER_H */
