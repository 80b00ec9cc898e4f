/*
 * engine_test.c
 *	  Unit tests of radik's selection engine (cuda/radik_engine.h) and of its key maps
 *	  (cuda/radik_keys.h), with no PostgreSQL involved.
 *
 * Every answer is checked against a plain reference computed here: the input keys sorted with
 * qsort, whose first min(k, n) keys are the only correct multiset.  A result passes when it has
 * exactly min(k, n) entries, its keys ascend, its keys equal the reference's first keys one for
 * one, and every id names a distinct input entry carrying that key (ties may pick any entries,
 * as in PostgreSQL, so ids are checked for validity, not compared).
 *
 * The CPU twin is always tested; the GPU engine too when radik_gpu_probe finds a device, and
 * then the GPU's keys are also compared with the CPU twin's on the same inputs.  Inputs are fresh
 * random data each run; the seed is printed first and can be replayed with --seed N (or the
 * RADIK_TEST_SEED environment variable).  Flags: --cpu-only, --gpu-only, and --general-rounds
 * (or RADIK_GPU_SMALL_SELECTION=off), which turns the GPU's one-pass small-k path off so that
 * the general rounds meet the small inputs too (a switch of radik_gpu_switches.h, built into the
 * test program alone).
 *
 * Output: one line per group, then exactly "N passed, N failed" (counting cases), which CI
 * reads; the exit status is non-zero if anything failed.
 */
#include "radik_engine.h"
#include "radik_gpu_switches.h"
#include "radik_keys.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Ids given to input entry i: offset so a backend that invents indices is caught. */
#define ID_BASE UINT64_C(0x0000100000000000)

/* Printed failure details per group, so one broken case does not flood the log. */
#define MAX_REPORTED_FAILURES 5

typedef enum key_distribution
{
	DIST_UNIFORM,				/* anything the type can hold */
	DIST_SPECIALS,				/* half special values (extremes, NaN, infinities, zeros) */
	DIST_FEW_DISTINCT,			/* a handful of values: many ties */
	DIST_ALL_EQUAL,
	DIST_NARROW,				/* values close together: only the low digits differ */
	DIST_ASCENDING,				/* uniform, presented in ascending order */
	DIST_DESCENDING,			/* uniform, presented in descending order (worst case for the
								 * running threshold: every row improves it) */
	DIST_COUNT
} key_distribution;

static const char *const distribution_names[DIST_COUNT] = {
	"uniform", "specials", "few-distinct", "all-equal", "narrow", "ascending", "descending"
};

/* ---------------------------------------------------------------------------------------
 * Random numbers: splitmix64, tiny and good enough for test data.
 */
static uint64_t rng_state;

static uint64_t
rng_next(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* uniform in [0, bound), bound > 0 */
static uint64_t
rng_below(uint64_t bound)
{
	return rng_next() % bound;
}

/* ---------------------------------------------------------------------------------------
 * Bookkeeping: cases passed and failed, per group and in all.
 */
static long total_passed = 0;
static long total_failed = 0;
static long group_passed;
static long group_failed;
static const char *group_name;
static uint64_t seed;

static void
group_begin(const char *name)
{
	group_name = name;
	group_passed = 0;
	group_failed = 0;
}

static void
group_end(void)
{
	printf("%-4s %s: %ld passed, %ld failed\n", group_failed ? "FAIL" : "ok", group_name,
		   group_passed, group_failed);
	fflush(stdout);
	total_passed += group_passed;
	total_failed += group_failed;
}

static void
case_passed(void)
{
	group_passed++;
}

static void
case_failed(const char *fmt,...)
{
	va_list		args;

	group_failed++;
	if (group_failed > MAX_REPORTED_FAILURES)
		return;
	printf("  failure in %s (seed %" PRIu64 "): ", group_name, seed);
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
}

static void *
checked_malloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
	{
		fprintf(stderr, "engine_test: out of memory (%zu bytes)\n", size);
		abort();
	}
	return p;
}

/* ---------------------------------------------------------------------------------------
 * PostgreSQL values and their keys.  Each type draws a value for a distribution and maps it
 * with radik_keys.h; the tests of the engine only see the keys.
 */
static const uint32_t float4_special_bits[] = {
	0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0xFF800001, 0xFFFFFFFF, 0x7FA00000,	/* NaNs */
	0x7F800000, 0xFF800000,		/* +-Infinity */
	0x00000000, 0x80000000,		/* +-0 */
	0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,	/* subnormals */
	0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x80800000,	/* FLT_MAX, FLT_MIN and negatives */
	0x3F800000, 0xBF800000		/* +-1 */
};

static const uint64_t float8_special_bits[] = {
	UINT64_C(0x7FF8000000000000), UINT64_C(0xFFF8000000000000), UINT64_C(0x7FF0000000000001),
	UINT64_C(0x7FFFFFFFFFFFFFFF), UINT64_C(0xFFF0000000000001), UINT64_C(0xFFFFFFFFFFFFFFFF),
	UINT64_C(0x7FF4000000000000),
	UINT64_C(0x7FF0000000000000), UINT64_C(0xFFF0000000000000),
	UINT64_C(0x0000000000000000), UINT64_C(0x8000000000000000),
	UINT64_C(0x0000000000000001), UINT64_C(0x8000000000000001),
	UINT64_C(0x000FFFFFFFFFFFFF), UINT64_C(0x800FFFFFFFFFFFFF),
	UINT64_C(0x7FEFFFFFFFFFFFFF), UINT64_C(0xFFEFFFFFFFFFFFFF),
	UINT64_C(0x0010000000000000), UINT64_C(0x8010000000000000),
	UINT64_C(0x3FF0000000000000), UINT64_C(0xBFF0000000000000)
};

#define LENGTH(array) (sizeof(array) / sizeof((array)[0]))

static float
float4_from_bits(uint32_t bits)
{
	float		v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

static double
float8_from_bits(uint64_t bits)
{
	double		v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

static uint32_t
bits_from_float4(float v)
{
	uint32_t	bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

static uint64_t
bits_from_float8(double v)
{
	uint64_t	bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

/* A raw value of each type, as 64 bits (signed types sign-extended, floats as their bits). */
typedef struct key_type
{
	const char *name;
	int			key_bytes;
	uint64_t	(*draw) (key_distribution dist, const uint64_t *pool);	/* returns a value */
	uint64_t	(*key_of) (uint64_t value); /* the ascending key */
	int			(*compare) (uint64_t a, uint64_t b);	/* PostgreSQL's order */
	int			(*round_trips) (uint64_t value);	/* from_key(key(v)) == v */
} key_type;

static int
compare_signed(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int
compare_unsigned(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/*
 * What every numeric type draws alike: DIST_FEW_DISTINCT and DIST_ALL_EQUAL take a value from
 * the pool (*value set, returns 1); any other distribution returns 0 and draws nothing.
 */
static int
draw_from_pool(key_distribution dist, const uint64_t *pool, uint64_t *value)
{
	if (dist == DIST_FEW_DISTINCT)
		*value = pool[rng_below(4)];
	else if (dist == DIST_ALL_EQUAL)
		*value = pool[0];
	else
		return 0;
	return 1;
}

/* Should this DIST_SPECIALS value be one of the type's special values?  (Half of them are.) */
static int
draws_special(key_distribution dist)
{
	return dist == DIST_SPECIALS && rng_below(2);
}

/* PostgreSQL's order of floats: NaN equals NaN and sorts above everything else. */
static int
compare_floating(double x, double y)
{
	if (isnan(x))
		return isnan(y) ? 0 : 1;
	if (isnan(y))
		return -1;
	return x < y ? -1 : x > y;
}

/* int16 */
static uint64_t
draw_int16(key_distribution dist, const uint64_t *pool)
{
	static const int16_t specials[] = {INT16_MIN, INT16_MAX, 0, -1, 1, INT16_MIN + 1};
	uint64_t	value;

	if (draw_from_pool(dist, pool, &value))
		return value;
	if (draws_special(dist))
		return (uint64_t) (int64_t) specials[rng_below(LENGTH(specials))];
	if (dist == DIST_NARROW)
		return (uint64_t) (int64_t) (int16_t) (100 + rng_below(50));
	return (uint64_t) (int64_t) (int16_t) rng_next();
}

static uint64_t
key_int16(uint64_t v)
{
	return radik_key_from_int16((int16_t) v);
}

static int
compare_int16(uint64_t a, uint64_t b)
{
	return compare_signed((int16_t) a, (int16_t) b);
}

static int
round_trips_int16(uint64_t v)
{
	return (int16_t) radik_int32_from_key(radik_key_from_int16((int16_t) v)) == (int16_t) v;
}

/* int32, and date (int32 days; -infinity and infinity are INT32_MIN and INT32_MAX) */
static uint64_t
draw_int32(key_distribution dist, const uint64_t *pool)
{
	static const int32_t specials[] = {INT32_MIN, INT32_MAX, 0, -1, 1, INT32_MIN + 1};
	uint64_t	value;

	if (draw_from_pool(dist, pool, &value))
		return value;
	if (draws_special(dist))
		return (uint64_t) (int64_t) specials[rng_below(LENGTH(specials))];
	if (dist == DIST_NARROW)
		return (uint64_t) (int64_t) (int32_t) (-500 + (int32_t) rng_below(1000));
	return (uint64_t) (int64_t) (int32_t) rng_next();
}

static uint64_t
draw_date(key_distribution dist, const uint64_t *pool)
{
	if (dist == DIST_UNIFORM || dist == DIST_ASCENDING || dist == DIST_DESCENDING)
		return (uint64_t) (int64_t) (-2451545 + (int32_t) rng_below(5000000)); /* 4713 BC .. */
	return draw_int32(dist, pool);
}

static uint64_t
key_int32(uint64_t v)
{
	return radik_key_from_int32((int32_t) v);
}

static int
compare_int32(uint64_t a, uint64_t b)
{
	return compare_signed((int32_t) a, (int32_t) b);
}

static int
round_trips_int32(uint64_t v)
{
	return radik_int32_from_key(radik_key_from_int32((int32_t) v)) == (int32_t) v;
}

/* int64, and timestamp (int64 microseconds; +-infinity are INT64_MAX and INT64_MIN) */
static uint64_t
draw_int64(key_distribution dist, const uint64_t *pool)
{
	static const int64_t specials[] = {INT64_MIN, INT64_MAX, 0, -1, 1, INT64_MIN + 1,
	INT32_MIN, (int64_t) INT32_MAX + 1};
	uint64_t	value;

	if (draw_from_pool(dist, pool, &value))
		return value;
	if (draws_special(dist))
		return (uint64_t) specials[rng_below(LENGTH(specials))];
	if (dist == DIST_NARROW)
		return (uint64_t) (INT64_C(1) << 40) + rng_below(3000);
	return rng_next();
}

static uint64_t
draw_timestamp(key_distribution dist, const uint64_t *pool)
{
	if (dist == DIST_UNIFORM || dist == DIST_ASCENDING || dist == DIST_DESCENDING)
		return (uint64_t) INT64_C(-211813488000000000) +
			rng_below(UINT64_C(9435484800000000000));	/* 4714 BC .. 294276 AD */
	return draw_int64(dist, pool);
}

static uint64_t
key_int64(uint64_t v)
{
	return radik_key_from_int64((int64_t) v);
}

static int
compare_int64(uint64_t a, uint64_t b)
{
	return compare_signed((int64_t) a, (int64_t) b);
}

static int
round_trips_int64(uint64_t v)
{
	return radik_int64_from_key(radik_key_from_int64((int64_t) v)) == (int64_t) v;
}

/* float4: values are the float's bits */
static uint64_t
draw_float4(key_distribution dist, const uint64_t *pool)
{
	uint64_t	value;

	if (draw_from_pool(dist, pool, &value))
		return value;
	if (draws_special(dist))
		return float4_special_bits[rng_below(LENGTH(float4_special_bits))];
	if (dist == DIST_NARROW)
		return bits_from_float4(1.0f + (float) rng_below(4000) / 8192.0f);
	if (rng_below(4) == 0)
		return (uint32_t) rng_next();	/* any bit pattern, NaNs included */
	return bits_from_float4((float) ((double) (int64_t) rng_next() / 9.2e14));
}

static uint64_t
key_float4(uint64_t v)
{
	return radik_key_from_float4(float4_from_bits((uint32_t) v));
}

static int
compare_float4(uint64_t a, uint64_t b)
{
	return compare_floating(float4_from_bits((uint32_t) a), float4_from_bits((uint32_t) b));
}

static int
round_trips_float4(uint64_t v)
{
	float		x = float4_from_bits((uint32_t) v);
	float		back = radik_float4_from_key(radik_key_from_float4(x));

	if (isnan(x))
		return isnan(back);
	if (x == 0.0f)
		return bits_from_float4(back) == 0;	/* -0 comes back as +0 */
	return bits_from_float4(back) == (uint32_t) v;
}

/* float8 */
static uint64_t
draw_float8(key_distribution dist, const uint64_t *pool)
{
	uint64_t	value;

	if (draw_from_pool(dist, pool, &value))
		return value;
	if (draws_special(dist))
		return float8_special_bits[rng_below(LENGTH(float8_special_bits))];
	if (dist == DIST_NARROW)
		return bits_from_float8(1.0 + (double) rng_below(4000) * DBL_EPSILON);
	if (rng_below(4) == 0)
		return rng_next();		/* any bit pattern, NaNs included */
	return bits_from_float8((double) (int64_t) rng_next() / 9.2e14);
}

static uint64_t
key_float8(uint64_t v)
{
	return radik_key_from_float8(float8_from_bits(v));
}

static int
compare_float8(uint64_t a, uint64_t b)
{
	return compare_floating(float8_from_bits(a), float8_from_bits(b));
}

static int
round_trips_float8(uint64_t v)
{
	double		x = float8_from_bits(v);
	double		back = radik_float8_from_key(radik_key_from_float8(x));

	if (isnan(x))
		return isnan(back);
	if (x == 0.0)
		return bits_from_float8(back) == 0;
	return bits_from_float8(back) == v;
}

/* bool */
static uint64_t
draw_bool(key_distribution dist, const uint64_t *pool)
{
	if (dist == DIST_ALL_EQUAL)
		return pool[0] & 1;
	return rng_below(2);
}

static uint64_t
key_bool(uint64_t v)
{
	return radik_key_from_bool((int) v);
}

static int
compare_bool(uint64_t a, uint64_t b)
{
	return compare_unsigned(a != 0, b != 0);
}

static int
round_trips_bool(uint64_t v)
{
	return radik_key_from_bool((int) v) == (v != 0);
}

/* oid (unsigned 32 bits) */
static uint64_t
draw_oid(key_distribution dist, const uint64_t *pool)
{
	uint64_t	value;

	if (draw_from_pool(dist, pool, &value))
		return value;
	if (draws_special(dist))
		return rng_below(2) ? 0 : UINT32_MAX;
	if (dist == DIST_NARROW)
		return 16384 + rng_below(300);
	return (uint32_t) rng_next();
}

static uint64_t
key_oid(uint64_t v)
{
	return radik_key_from_uint32((uint32_t) v);
}

static int
compare_oid(uint64_t a, uint64_t b)
{
	return compare_unsigned((uint32_t) a, (uint32_t) b);
}

static int
round_trips_oid(uint64_t v)
{
	return radik_key_from_uint32((uint32_t) v) == (uint32_t) v;
}

static const key_type key_types[] = {
	{"int2", 4, draw_int16, key_int16, compare_int16, round_trips_int16},
	{"int4", 4, draw_int32, key_int32, compare_int32, round_trips_int32},
	{"date", 4, draw_date, key_int32, compare_int32, round_trips_int32},
	{"int8", 8, draw_int64, key_int64, compare_int64, round_trips_int64},
	{"timestamp", 8, draw_timestamp, key_int64, compare_int64, round_trips_int64},
	{"float4", 4, draw_float4, key_float4, compare_float4, round_trips_float4},
	{"float8", 8, draw_float8, key_float8, compare_float8, round_trips_float8},
	{"bool", 4, draw_bool, key_bool, compare_bool, round_trips_bool},
	{"oid", 4, draw_oid, key_oid, compare_oid, round_trips_oid},
};

#define KEY_TYPE_COUNT ((int) LENGTH(key_types))

static const key_type *
find_key_type(const char *name)
{
	int			t;

	for (t = 0; t < KEY_TYPE_COUNT; t++)
		if (strcmp(key_types[t].name, name) == 0)
			return &key_types[t];
	abort();
}

static uint64_t
descending_key(int key_bytes, uint64_t key)
{
	return key_bytes == 4 ? radik_key32_descending((uint32_t) key) : radik_key64_descending(key);
}

static int
compare_keys_qsort(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static int
compare_keys_descending_qsort(const void *a, const void *b)
{
	return compare_keys_qsort(b, a);
}

/*
 * Fill keys[0..n) with the keys of values drawn from dist, ascending or descending order of the
 * type.
 */
static void
make_keys(const key_type *type, key_distribution dist, int descending, uint64_t *keys, size_t n)
{
	uint64_t	pool[4];
	size_t		i;

	for (i = 0; i < LENGTH(pool); i++)
		pool[i] = type->draw(DIST_UNIFORM, NULL);
	for (i = 0; i < n; i++)
	{
		uint64_t	key = type->key_of(type->draw(dist, pool));

		keys[i] = descending ? descending_key(type->key_bytes, key) : key;
	}
	if (dist == DIST_ASCENDING)
		qsort(keys, n, sizeof(uint64_t), compare_keys_qsort);
	else if (dist == DIST_DESCENDING)
		qsort(keys, n, sizeof(uint64_t), compare_keys_descending_qsort);
}

/* ---------------------------------------------------------------------------------------
 * The key maps themselves: PostgreSQL's order iff the keys' unsigned order.
 */
static void
test_key_maps(void)
{
	int			t;

	for (t = 0; t < KEY_TYPE_COUNT; t++)
	{
		const key_type *type = &key_types[t];
		char		name[64];
		long		bad_order = 0;
		long		bad_round_trip = 0;
		int			pair;

		snprintf(name, sizeof(name), "key map %s (order, descending, round trip)", type->name);
		group_begin(name);
		for (pair = 0; pair < 200000; pair++)
		{
			key_distribution dist = (key_distribution) rng_below(3);	/* uniform, specials, few */
			uint64_t	pool[4] = {0, 0, 0, 0};
			uint64_t	a,
						b,
						ka,
						kb;
			int			expected;
			int			got;
			int			got_descending;

			pool[0] = type->draw(DIST_SPECIALS, pool);
			pool[1] = type->draw(DIST_SPECIALS, pool);
			pool[2] = type->draw(DIST_UNIFORM, pool);
			pool[3] = type->draw(DIST_UNIFORM, pool);
			a = type->draw(dist, pool);
			b = rng_below(8) == 0 ? a : type->draw(dist, pool);
			ka = type->key_of(a);
			kb = type->key_of(b);
			expected = type->compare(a, b);
			got = compare_unsigned(ka, kb);
			got_descending = compare_unsigned(descending_key(type->key_bytes, ka),
											  descending_key(type->key_bytes, kb));
			if (type->key_bytes == 4 && (ka > UINT32_MAX || kb > UINT32_MAX))
				got = 2;		/* a 4-byte type's key must fit in 32 bits */
			if (got != expected || got_descending != -expected)
			{
				if (bad_order++ < MAX_REPORTED_FAILURES)
					case_failed("%s: values 0x%" PRIx64 " and 0x%" PRIx64
								" compare %d but keys 0x%" PRIx64 " and 0x%" PRIx64
								" compare %d (descending %d)", type->name, a, b, expected,
								ka, kb, got, got_descending);
			}
			if (!type->round_trips(a))
			{
				if (bad_round_trip++ < MAX_REPORTED_FAILURES)
					case_failed("%s: value 0x%" PRIx64 " does not survive key and back",
								type->name, a);
			}
		}
		/* whatever the misses, count the type's checks as two cases */
		if (bad_order == 0)
			case_passed();
		if (bad_round_trip == 0)
			case_passed();
		group_end();
	}

	/* Fixed facts, independent of random draws. */
	group_begin("key map fixed facts (NaN above +Infinity, -0 equals +0, NaNs equal)");
#define FACT(cond) do { if (cond) case_passed(); else case_failed("not true: %s", #cond); } while (0)
	FACT(radik_key_from_float4(NAN) > radik_key_from_float4(INFINITY));
	FACT(radik_key_from_float4(-NAN) == radik_key_from_float4(NAN));
	FACT(radik_key_from_float4(float4_from_bits(0x7F800001)) == radik_key_from_float4(NAN));
	FACT(radik_key_from_float4(-0.0f) == radik_key_from_float4(0.0f));
	FACT(radik_key_from_float4(-INFINITY) < radik_key_from_float4(-FLT_MAX));
	FACT(radik_key_from_float4(-FLT_MAX) < radik_key_from_float4(-1.0f));
	FACT(radik_key_from_float4(-1.0f) < radik_key_from_float4(-0.0f));
	FACT(radik_key_from_float4(0.0f) < radik_key_from_float4(float4_from_bits(1)));
	FACT(radik_key_from_float8(NAN) > radik_key_from_float8(INFINITY));
	FACT(radik_key_from_float8(-NAN) == radik_key_from_float8(NAN));
	FACT(radik_key_from_float8(float8_from_bits(UINT64_C(0xFFF0000000000001))) ==
		 radik_key_from_float8(NAN));
	FACT(radik_key_from_float8(-0.0) == radik_key_from_float8(0.0));
	FACT(radik_key_from_float8(-INFINITY) < radik_key_from_float8(-DBL_MAX));
	FACT(radik_key_from_float8(-DBL_MIN) < radik_key_from_float8(-0.0));
	FACT(radik_key_from_int16(INT16_MIN) < radik_key_from_int16(-1));
	FACT(radik_key_from_int16(-1) < radik_key_from_int16(0));
	FACT(radik_key_from_int32(INT32_MIN) == 0);
	FACT(radik_key_from_int32(INT32_MAX) == UINT32_MAX);
	FACT(radik_key_from_int64(INT64_MIN) == 0);
	FACT(radik_key_from_int64(INT64_MAX) == UINT64_MAX);
	FACT(radik_key_from_bool(0) < radik_key_from_bool(1));
	FACT(radik_key32_descending(radik_key_from_int32(5)) < radik_key32_descending(radik_key_from_int32(4)));
	FACT(isnan(radik_float4_from_key(radik_key_from_float4(NAN))));
	FACT(isnan(radik_float8_from_key(radik_key_from_float8(NAN))));
#undef FACT
	group_end();

	/* The branch-free float4 map the CPU side uses, against the float one, on every pattern. */
	group_begin("key map float4 on bits (every one of the 2^32 bit patterns)");
	{
		uint64_t	mismatches = 0;

		for (uint64_t b = 0; b <= UINT32_MAX; b++)
		{
			if (radik_key_from_float4_bits((uint32_t) b) !=
				radik_key_from_float4(float4_from_bits((uint32_t) b)) && mismatches++ == 0)
				case_failed("bits 0x%08x: %08x, float map %08x", (unsigned) b,
							radik_key_from_float4_bits((uint32_t) b),
							radik_key_from_float4(float4_from_bits((uint32_t) b)));
		}
		if (mismatches == 0)
			case_passed();
	}
	group_end();
}

/* ---------------------------------------------------------------------------------------
 * Running the engine.
 */
typedef enum chunking
{
	CHUNK_FULL,					/* as much as the chunk buffer holds */
	CHUNK_RANDOM_SMALL,			/* random sizes from 1 to 64 */
	CHUNK_RANDOM,				/* random sizes from 0 to the capacity */
	CHUNK_SINGLE,				/* one entry per push */
	CHUNK_CALLER				/* the caller's own arrays (radik_push_keys), any length,
								 * mixed with random chunk buffers */
} chunking;

/* A finished selection's answer. */
typedef struct answer
{
	uint64_t	count;
	uint64_t   *keys;
	uint64_t   *ids;
} answer;

static void
answer_free(answer *a)
{
	free(a->keys);
	free(a->ids);
	a->keys = NULL;
	a->ids = NULL;
}

/* The chunk capacity each device reports (learnt at start), and the smaller of those tested. */
static size_t cpu_chunk_capacity = 0;
static size_t gpu_chunk_capacity = 0;
static size_t tested_chunk_capacity = (size_t) 1 << 20;

static size_t
next_chunk_size(chunking mode, size_t capacity, size_t left)
{
	size_t		size;

	switch (mode)
	{
		case CHUNK_RANDOM_SMALL:
			size = 1 + (size_t) rng_below(64);
			break;
		case CHUNK_RANDOM:
			size = (size_t) rng_below(capacity + 1);
			break;
		case CHUNK_SINGLE:
			size = 1;
			break;
		default:
			size = capacity;
			break;
	}
	if (size > capacity)
		size = capacity;
	return size < left ? size : left;
}

/*
 * Push keys[0..n) with ids first_id + i from arrays of the caller's (keys at the selection's
 * width), then scribble over those arrays: the engine must have copied them already.
 */
static radik_status
push_from_caller(radik_selection *selection, int key_bytes, const uint64_t *keys,
				 uint64_t first_id, size_t n, radik_error *err)
{
	void	   *caller_keys = checked_malloc(n * sizeof(uint64_t) + 1);
	uint64_t   *caller_ids = checked_malloc(n * sizeof(uint64_t) + 1);
	radik_status status;

	for (size_t i = 0; i < n; i++)
	{
		if (key_bytes == 4)
			((uint32_t *) caller_keys)[i] = (uint32_t) keys[i];
		else
			((uint64_t *) caller_keys)[i] = keys[i];
		caller_ids[i] = first_id + i;
	}
	status = radik_push_keys(selection, caller_keys, caller_ids, n, err);
	memset(caller_keys, 0, n * (size_t) key_bytes);
	memset(caller_ids, 0xff, n * sizeof(uint64_t));
	free(caller_keys);
	free(caller_ids);
	return status;
}

/*
 * The k smallest keys seen so far as a max-heap of k entries: its top is the k-th smallest,
 * what radik_threshold must answer.
 */
typedef struct kth_heap
{
	uint64_t   *items;
	size_t		size;
	size_t		k;
} kth_heap;

static void
kth_heap_add(kth_heap *heap, uint64_t key)
{
	size_t		i;

	if (heap->size < heap->k)
	{
		i = heap->size++;
		while (i > 0 && heap->items[(i - 1) / 2] < key)
		{
			heap->items[i] = heap->items[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		heap->items[i] = key;
		return;
	}
	if (key >= heap->items[0])
		return;
	i = 0;						/* replace the top and sift down */
	for (;;)
	{
		size_t		child = 2 * i + 1;

		if (child >= heap->size)
			break;
		if (child + 1 < heap->size && heap->items[child + 1] > heap->items[child])
			child++;
		if (heap->items[child] <= key)
			break;
		heap->items[i] = heap->items[child];
		i = child;
	}
	heap->items[i] = key;
}

/*
 * Stream keys[0..n) (ids ID_BASE + i) through a selection on device.  With check_threshold,
 * check the threshold after every push against the k-th smallest key pushed so far.  Returns 0
 * and fills *out on success; on a failure reports it and returns -1.
 */
static int
run_streaming(radik_device device, int key_bytes, const uint64_t *keys, size_t n, uint64_t k,
			  chunking mode, int check_threshold, answer *out, const char *what)
{
	radik_selection *selection = NULL;
	radik_error err;
	radik_status status;
	size_t		pushed = 0;
	kth_heap	heap = {NULL, 0, 0};

	if (check_threshold && k > 0 && k <= n)
	{
		heap.k = (size_t) k;
		heap.items = checked_malloc(heap.k * sizeof(uint64_t));
	}

	memset(out, 0, sizeof(*out));
	err.message[0] = '\0';
	status = radik_open(device, key_bytes, k, n, &selection, &err);
	if (status != RADIK_OK)
	{
		case_failed("%s: radik_open: %d %s", what, (int) status, err.message);
		return -1;
	}
	do
	{
		void	   *chunk_keys;
		uint64_t   *chunk_ids;
		size_t		capacity;
		size_t		size;
		size_t		i;

		if (mode == CHUNK_CALLER && rng_below(2) == 0)
		{
			/* up to two and a half chunk buffers' worth, to cross the engine's own pieces */
			size_t		most = 2 * tested_chunk_capacity + tested_chunk_capacity / 2;

			size = (size_t) rng_below((n - pushed < most ? n - pushed : most) + 1);
			if (push_from_caller(selection, key_bytes, keys + pushed, ID_BASE + pushed, size,
								 &err) != RADIK_OK)
			{
				case_failed("%s: radik_push_keys: %s", what, err.message);
				goto fail;
			}
			goto pushed_size;
		}
		status = radik_chunk_buffer(selection, &chunk_keys, &chunk_ids, &capacity, &err);
		if (status != RADIK_OK)
		{
			case_failed("%s: radik_chunk_buffer: %d %s", what, (int) status, err.message);
			goto fail;
		}
		if (capacity == 0)
		{
			case_failed("%s: radik_chunk_buffer gave a capacity of 0", what);
			goto fail;
		}
		size = next_chunk_size(mode == CHUNK_CALLER ? CHUNK_RANDOM : mode, capacity, n - pushed);
		for (i = 0; i < size; i++)
		{
			if (key_bytes == 4)
				((uint32_t *) chunk_keys)[i] = (uint32_t) keys[pushed + i];
			else
				((uint64_t *) chunk_keys)[i] = keys[pushed + i];
			chunk_ids[i] = ID_BASE + pushed + i;
		}
		status = radik_push_chunk(selection, size, &err);
		if (status != RADIK_OK)
		{
			case_failed("%s: radik_push_chunk: %d %s", what, (int) status, err.message);
			goto fail;
		}
pushed_size:
		if (heap.items != NULL)
			for (i = 0; i < size; i++)
				kth_heap_add(&heap, keys[pushed + i]);
		pushed += size;
		if (check_threshold)
		{
			uint64_t	kth = 0;
			int			valid = -1;

			status = radik_threshold(selection, &kth, &valid, &err);
			if (status != RADIK_OK)
			{
				case_failed("%s: radik_threshold: %d %s", what, (int) status, err.message);
				goto fail;
			}
			if (k == 0 || pushed < k)
			{
				if (valid != 0)
				{
					case_failed("%s: threshold valid after %zu of k = %" PRIu64 " keys", what,
								pushed, k);
					goto fail;
				}
			}
			else if (valid != 1 || kth != heap.items[0])
			{
				case_failed("%s: after %zu keys threshold is %" PRIx64 " (valid %d), want %"
							PRIx64, what, pushed, kth, valid, heap.items[0]);
				goto fail;
			}
		}
	} while (pushed < n);

	status = radik_finish(selection, &out->count, &err);
	if (status != RADIK_OK)
	{
		case_failed("%s: radik_finish: %d %s", what, (int) status, err.message);
		goto fail;
	}
	if (out->count > n)
	{
		case_failed("%s: radik_finish says %" PRIu64 " entries out of %zu", what, out->count, n);
		goto fail;
	}
	out->keys = checked_malloc(out->count * sizeof(uint64_t));
	out->ids = checked_malloc(out->count * sizeof(uint64_t));
	status = radik_result(selection, out->keys, out->ids, &err);
	if (status != RADIK_OK)
	{
		case_failed("%s: radik_result: %d %s", what, (int) status, err.message);
		answer_free(out);
		goto fail;
	}
	radik_close(selection);
	free(heap.items);
	return 0;

fail:
	radik_close(selection);
	free(heap.items);
	return -1;
}

/*
 * Is got the right answer for keys[0..n) (ids id_base + i) and k, given sorted, the reference
 * keys sorted ascending?  seen is scratch of n bytes, all zero, left all zero.
 */
static int
check_answer(const uint64_t *keys, size_t n, uint64_t k, const uint64_t *sorted, uint64_t id_base,
			 const answer *got, unsigned char *seen, const char *what)
{
	uint64_t	want = k < n ? k : n;
	uint64_t	i;
	int			ok = 1;

	if (got->count != want)
	{
		case_failed("%s: %" PRIu64 " entries, want %" PRIu64, what, got->count, want);
		return 0;
	}
	for (i = 0; i < want && ok; i++)
	{
		uint64_t	index = got->ids[i] - id_base;

		if (i > 0 && got->keys[i - 1] > got->keys[i])
		{
			case_failed("%s: keys not ascending at %" PRIu64, what, i);
			ok = 0;
		}
		else if (got->keys[i] != sorted[i])
		{
			case_failed("%s: key %" PRIu64 " is 0x%" PRIx64 ", want 0x%" PRIx64, what, i,
						got->keys[i], sorted[i]);
			ok = 0;
		}
		else if (got->ids[i] < id_base || index >= n)
		{
			case_failed("%s: id %" PRIu64 " at %" PRIu64 " is no input entry", what,
						got->ids[i], i);
			ok = 0;
		}
		else if (seen[index])
		{
			case_failed("%s: entry %" PRIu64 " returned twice", what, index);
			ok = 0;
		}
		else if (keys[index] != got->keys[i])
		{
			case_failed("%s: entry %" PRIu64 " has key 0x%" PRIx64 ", returned with 0x%" PRIx64,
						what, index, keys[index], got->keys[i]);
			ok = 0;
		}
		else
			seen[index] = 1;
	}
	/* leave seen all zero again */
	for (i = 0; i < want; i++)
	{
		uint64_t	index = got->ids[i] - id_base;

		if (got->ids[i] >= id_base && index < n)
			seen[index] = 0;
	}
	return ok;
}

/* The devices under test, and whether the GPU is compared with the CPU twin. */
static int	test_cpu = 1;
static int	test_gpu = 0;
static char gpu_name[RADIK_ERROR_MESSAGE_SIZE];

/*
 * Select from one input with each k of ks on every device under test, checking each answer; on
 * a GPU also check its keys equal the CPU twin's.
 */
static void
check_input(const char *label, int key_bytes, const uint64_t *keys, size_t n,
			const uint64_t *ks, int k_count, chunking mode, int check_threshold)
{
	uint64_t   *sorted = checked_malloc(n * sizeof(uint64_t));
	unsigned char *seen = calloc(n ? n : 1, 1);
	int			i;

	if (seen == NULL)
		abort();
	memcpy(sorted, keys, n * sizeof(uint64_t));
	qsort(sorted, n, sizeof(uint64_t), compare_keys_qsort);
	for (i = 0; i < k_count; i++)
	{
		uint64_t	k = ks[i];
		answer		cpu_answer = {0, NULL, NULL};
		answer		gpu_answer = {0, NULL, NULL};
		char		what[256];
		int			ok = 1;

		if (test_cpu)
		{
			snprintf(what, sizeof(what), "cpu %s n=%zu k=%" PRIu64, label, n, k);
			if (run_streaming(RADIK_DEVICE_CPU, key_bytes, keys, n, k, mode, check_threshold,
							  &cpu_answer, what) != 0 ||
				!check_answer(keys, n, k, sorted, ID_BASE, &cpu_answer, seen, what))
				ok = 0;
		}
		if (test_gpu)
		{
			snprintf(what, sizeof(what), "gpu %s n=%zu k=%" PRIu64, label, n, k);
			if (run_streaming(RADIK_DEVICE_GPU, key_bytes, keys, n, k, mode, check_threshold,
							  &gpu_answer, what) != 0 ||
				!check_answer(keys, n, k, sorted, ID_BASE, &gpu_answer, seen, what))
				ok = 0;
			else if (test_cpu && cpu_answer.keys != NULL &&
					 (cpu_answer.count != gpu_answer.count ||
					  memcmp(cpu_answer.keys, gpu_answer.keys,
							 gpu_answer.count * sizeof(uint64_t)) != 0))
			{
				case_failed("%s: GPU keys differ from the CPU twin's", what);
				ok = 0;
			}
		}
		if (ok)
			case_passed();
		answer_free(&cpu_answer);
		answer_free(&gpu_answer);
	}
	free(sorted);
	free(seen);
}

/* The k values worth trying for n entries: the edges, and a couple of random ones. */
static int
interesting_ks(size_t n, uint64_t *ks)
{
	int			count = 0;

	ks[count++] = 0;
	ks[count++] = 1;
	ks[count++] = 2;
	ks[count++] = 10;
	if (n > 1)
		ks[count++] = n - 1;
	ks[count++] = n;
	ks[count++] = (uint64_t) n + 1;
	ks[count++] = UINT64_MAX;	/* LIMIT ALL may arrive as any huge k */
	ks[count++] = (uint64_t) INT64_MAX;
	ks[count++] = 1 + rng_below(n + 1);
	ks[count++] = 1 + rng_below(n / 8 + 1);
	return count;
}

static void
test_small_inputs(void)
{
	static const size_t sizes[] = {0, 1, 2, 3, 5, 17, 63, 100, 255, 256, 257, 1000};
	int			t;

	for (t = 0; t < KEY_TYPE_COUNT; t++)
	{
		const key_type *type = &key_types[t];
		char		name[96];
		int			dist;
		size_t		s;

		snprintf(name, sizeof(name), "small inputs %s (all distributions, both orders)",
				 type->name);
		group_begin(name);
		for (dist = 0; dist < DIST_COUNT; dist++)
			for (s = 0; s < LENGTH(sizes); s++)
			{
				size_t		n = sizes[s];
				uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
				uint64_t	ks[16];
				int			k_count = interesting_ks(n, ks);
				int			descending = (int) rng_below(2);
				chunking	mode = (chunking) rng_below(5);
				char		label[128];

				make_keys(type, (key_distribution) dist, descending, keys, n);
				snprintf(label, sizeof(label), "%s %s%s chunking %d", type->name,
						 distribution_names[dist], descending ? " desc" : "", (int) mode);
				check_input(label, type->key_bytes, keys, n, ks, k_count, mode, 0);
				free(keys);
			}
		group_end();
	}
}

static void
test_powers_of_two(void)
{
	static const char *const types[] = {"int2", "int4", "int8", "float4", "float8", "bool"};
	static const int exponents[] = {10, 12, 16, 18};
	size_t		t;

	for (t = 0; t < LENGTH(types); t++)
	{
		const key_type *type = find_key_type(types[t]);
		char		name[96];
		size_t		e;

		snprintf(name, sizeof(name), "sizes around powers of two %s", type->name);
		group_begin(name);
		for (e = 0; e < LENGTH(exponents); e++)
		{
			int			delta;

			for (delta = -1; delta <= 1; delta++)
			{
				size_t		n = ((size_t) 1 << exponents[e]) + delta;
				key_distribution dist = (key_distribution) rng_below(DIST_COUNT);
				uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
				uint64_t	ks[] = {1, 10, 1000, n / 2, n - 1, n, n + 1,
				(uint64_t) 1 << exponents[e], 1 + rng_below(n)};
				char		label[128];

				make_keys(type, dist, (int) rng_below(2), keys, n);
				snprintf(label, sizeof(label), "%s %s", type->name, distribution_names[dist]);
				check_input(label, type->key_bytes, keys, n, ks, (int) LENGTH(ks),
							(chunking) rng_below(3), 0);
				free(keys);
			}
		}
		group_end();
	}
}

/*
 * Several chunks: sizes around a device's chunk capacity.  A large capacity (a GPU's may be)
 * gets only the first two inputs, to keep the reference sorts affordable.
 */
static void
test_chunk_boundaries(size_t capacity)
{
	static const struct
	{
		const char *type;
		key_distribution dist;
		int			descending;
	}			inputs[] = {
		{"float4", DIST_UNIFORM, 0},
		{"int8", DIST_SPECIALS, 1},
		{"float8", DIST_FEW_DISTINCT, 0},
		{"int4", DIST_DESCENDING, 0},
	};
	size_t		input_count = capacity > ((size_t) 1 << 22) ? 2 : LENGTH(inputs);
	size_t		i;
	char		name[96];

	snprintf(name, sizeof(name), "sizes around the chunk capacity %zu (several chunks)",
			 capacity);
	group_begin(name);
	for (i = 0; i < input_count; i++)
	{
		const key_type *type = find_key_type(inputs[i].type);
		size_t		sizes[] = {capacity - 1, capacity + 1, 2 * capacity + 3};
		size_t		s;

		for (s = 0; s < LENGTH(sizes); s++)
		{
			size_t		n = sizes[s];
			uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
			uint64_t	ks[] = {1, 1000, capacity - 1, capacity, capacity + 1, n - 1, n,
			UINT64_MAX};
			char		label[128];

			make_keys(type, inputs[i].dist, inputs[i].descending, keys, n);
			snprintf(label, sizeof(label), "%s %s%s", type->name,
					 distribution_names[inputs[i].dist], inputs[i].descending ? " desc" : "");
			check_input(label, type->key_bytes, keys, n, ks, (int) LENGTH(ks), CHUNK_FULL, 0);
			free(keys);
		}
	}
	{
		/* a longer run, chunks of random sizes */
		size_t		n = 3 * capacity + capacity / 2;
		uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
		uint64_t	ks[] = {1, 100000, 2 * capacity + 7};

		make_keys(find_key_type("float4"), DIST_UNIFORM, 0, keys, n);
		check_input("float4 uniform random chunks", 4, keys, n, ks, (int) LENGTH(ks),
					CHUNK_RANDOM, 0);
		free(keys);
	}
	group_end();
}

/*
 * Large sorted answers (over 4M entries, where the GPU sorts on only the bits in which the
 * answer's keys differ, found from a strided sample and then from all of them) over keys that
 * share their high bits, their low bits, all their bits, or all but one, and over keys whose three
 * outliers differ in bits the others share: they are the last three keys pushed, which a sample
 * of every (count / 2048)-th key from the first never reads (where everything pushed is the
 * answer, k >= n, the answer is sorted in the order pushed).  Each input also goes through the
 * batch call without ids, where the GPU keeps a large answer's positions as 32-bit indexes until
 * its sort (store_out_id in cuda/radik_gpu_filter.cuh): every id must still be its key's
 * position.
 */
static void check_batch(const char *label, radik_device device, int key_bytes,
						const uint64_t *keys, const uint64_t *offsets, size_t segments,
						const uint64_t *ks, int with_ids, answer *outputs);

static void
test_large_sorted_answers(void)
{
	static const char *const labels[] = {
		"4-byte keys sharing their top 10 bits (floats in [0.75, 1))",
		"8-byte keys sharing their top 28 and low 8 bits", "8-byte keys all equal",
		"4-byte keys differing in bit 13 alone",
		"4-byte keys sharing their top 16 bits but the last three"
	};
	const size_t n = ((size_t) 6 << 20) + 3;
	uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
	uint64_t	ks[] = {n - n / 8, n - 1, n};
	const uint64_t batch_offsets[] = {0, n};
	size_t		shape;

	group_begin("large sorted answers over keys sharing high or low bits");
	for (shape = 0; shape < LENGTH(labels); shape++)
	{
		const int	key_bytes = shape == 1 || shape == 2 ? 8 : 4;
		size_t		i;

		for (i = 0; i < n; i++)
		{
			if (shape == 0)
				keys[i] = UINT64_C(0xBF400000) + rng_below(UINT64_C(0x400000));
			else if (shape == 1)
				keys[i] = UINT64_C(0x8000123000000000) | (rng_below(UINT64_C(1) << 28) << 8) |
					UINT64_C(0x5A);
			else if (shape == 2)
				keys[i] = UINT64_C(0x8000000000000007);
			else if (shape == 3)
				keys[i] = UINT64_C(0x12345678) ^ (rng_below(2) << 13);
			else
				keys[i] = i >= n - 3 ? rng_below(UINT64_C(1) << 20) :
					UINT64_C(0x7FFF0000) + rng_below(UINT64_C(1) << 16);
		}
		check_input(labels[shape], key_bytes, keys, n, ks, (int) LENGTH(ks), CHUNK_FULL, 0);
		if (test_cpu)
			check_batch(labels[shape], RADIK_DEVICE_CPU, key_bytes, keys, batch_offsets, 1, ks, 0,
						NULL);
		if (test_gpu)
			check_batch(labels[shape], RADIK_DEVICE_GPU, key_bytes, keys, batch_offsets, 1, ks, 0,
						NULL);
	}
	free(keys);
	group_end();
}

static void
test_small_chunks(void)
{
	static const char *const types[] = {"int4", "int8", "float4", "float8", "timestamp"};
	size_t		t;

	group_begin("streaming in many small chunks (1 to 64 entries, and single entries)");
	for (t = 0; t < LENGTH(types); t++)
	{
		const key_type *type = find_key_type(types[t]);
		size_t		n = 50000;
		uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
		uint64_t	ks[] = {1, 7, 100, 4999, n - 1, n, UINT64_MAX};
		key_distribution dist = (key_distribution) rng_below(DIST_COUNT);
		char		label[128];

		make_keys(type, dist, (int) rng_below(2), keys, n);
		snprintf(label, sizeof(label), "%s %s small chunks", type->name, distribution_names[dist]);
		check_input(label, type->key_bytes, keys, n, ks, (int) LENGTH(ks), CHUNK_RANDOM_SMALL, 0);
		n = 3000;
		snprintf(label, sizeof(label), "%s %s single entries", type->name,
				 distribution_names[dist]);
		check_input(label, type->key_bytes, keys, n, ks, 5, CHUNK_SINGLE, 0);
		free(keys);
	}
	group_end();
}

static void
test_thresholds(void)
{
	static const char *const types[] = {"int2", "int4", "int8", "float4", "float8", "bool"};
	size_t		t;
	size_t		capacity = tested_chunk_capacity;

	group_begin("threshold after each push is the k-th smallest key so far");
	for (t = 0; t < LENGTH(types); t++)
	{
		const key_type *type = find_key_type(types[t]);
		size_t		n = 20000;
		uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
		key_distribution dist;

		for (dist = 0; dist < DIST_COUNT; dist++)
		{
			uint64_t	ks[] = {0, 1, 3, 64, 1000, 19999, 20000, 20001};
			char		label[128];

			make_keys(type, dist, (int) rng_below(2), keys, n);
			snprintf(label, sizeof(label), "%s %s threshold", type->name,
					 distribution_names[dist]);
			check_input(label, type->key_bytes, keys, n, ks, (int) LENGTH(ks),
						rng_below(2) ? CHUNK_RANDOM_SMALL : CHUNK_RANDOM, 1);
		}
		free(keys);
	}
	{
		/* across full chunks */
		size_t		n = 2 * capacity + capacity / 2;
		uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
		uint64_t	ks[] = {1, 5000, capacity + 3};

		make_keys(find_key_type("float4"), DIST_DESCENDING, 0, keys, n);
		check_input("float4 descending full chunks threshold", 4, keys, n, ks, (int) LENGTH(ks),
					CHUNK_FULL, 1);
		free(keys);
	}
	group_end();
}

/*
 * Batch selection: segments of unequal lengths (empty ones included), each k anything from 0
 * to far beyond its length, ids given or NULL.
 */
static void
check_batch(const char *label, radik_device device, int key_bytes, const uint64_t *keys,
			const uint64_t *offsets, size_t segments, const uint64_t *ks, int with_ids,
			answer *outputs)
{
	size_t		total = offsets[segments];
	uint64_t   *ids = NULL;
	void	   *packed = checked_malloc(total * key_bytes);
	uint64_t   *out_offsets = checked_malloc((segments + 1) * sizeof(uint64_t));
	uint64_t   *out_counts = checked_malloc((segments ? segments : 1) * sizeof(uint64_t));
	uint64_t   *out_keys;
	uint64_t   *out_ids;
	radik_error err;
	radik_status status;
	size_t		s;
	size_t		i;
	int			ok = 1;

	for (i = 0; i < total; i++)
	{
		if (key_bytes == 4)
			((uint32_t *) packed)[i] = (uint32_t) keys[i];
		else
			((uint64_t *) packed)[i] = keys[i];
	}
	if (with_ids)
	{
		ids = checked_malloc(total * sizeof(uint64_t));
		for (i = 0; i < total; i++)
			ids[i] = ID_BASE + i;
	}
	out_offsets[0] = 0;
	for (s = 0; s < segments; s++)
	{
		uint64_t	length = offsets[s + 1] - offsets[s];

		out_offsets[s + 1] = out_offsets[s] + (ks[s] < length ? ks[s] : length);
		out_counts[s] = UINT64_MAX;
	}
	out_keys = checked_malloc(out_offsets[segments] * sizeof(uint64_t));
	out_ids = checked_malloc(out_offsets[segments] * sizeof(uint64_t));
	err.message[0] = '\0';
	status = radik_select_batch(device, key_bytes, packed, ids, offsets, segments, ks,
								out_offsets, out_keys, out_ids, out_counts, &err);
	if (status != RADIK_OK)
	{
		case_failed("%s: radik_select_batch: %d %s", label, (int) status, err.message);
		ok = 0;
	}
	for (s = 0; s < segments && ok; s++)
	{
		size_t		n = offsets[s + 1] - offsets[s];
		const uint64_t *segment_keys = keys + offsets[s];
		uint64_t   *sorted = checked_malloc(n * sizeof(uint64_t));
		unsigned char *seen = calloc(n ? n : 1, 1);
		answer		got;
		char		what[256];

		if (seen == NULL)
			abort();
		memcpy(sorted, segment_keys, n * sizeof(uint64_t));
		qsort(sorted, n, sizeof(uint64_t), compare_keys_qsort);
		got.count = out_counts[s];
		got.keys = out_keys + out_offsets[s];
		got.ids = out_ids + out_offsets[s];
		snprintf(what, sizeof(what), "%s segment %zu of %zu (n=%zu k=%" PRIu64 ")", label, s,
				 segments, n, ks[s]);
		if (!check_answer(segment_keys, n, ks[s], sorted, with_ids ? ID_BASE + offsets[s] : 0,
						  &got, seen, what))
			ok = 0;
		else if (outputs != NULL && outputs[s].keys != NULL &&
				 (outputs[s].count != got.count ||
				  memcmp(outputs[s].keys, got.keys, got.count * sizeof(uint64_t)) != 0))
		{
			case_failed("%s: GPU keys differ from the CPU twin's", what);
			ok = 0;
		}
		else if (outputs != NULL && outputs[s].keys == NULL)
		{
			outputs[s].count = got.count;
			outputs[s].keys = checked_malloc(got.count * sizeof(uint64_t));
			memcpy(outputs[s].keys, got.keys, got.count * sizeof(uint64_t));
		}
		free(sorted);
		free(seen);
	}
	if (ok)
		case_passed();
	free(packed);
	free(ids);
	free(out_offsets);
	free(out_counts);
	free(out_keys);
	free(out_ids);
}

static void
test_batches(void)
{
	static const char *const types[] = {"int2", "int4", "int8", "float4", "float8", "oid"};
	size_t		capacity = tested_chunk_capacity;
	int			round;

	group_begin("batch selection over unequal segments");
	for (round = 0; round < 60; round++)
	{
		const key_type *type = find_key_type(types[round % LENGTH(types)]);
		size_t		segments = round == 0 ? 0 : 1 + (size_t) rng_below(round < 50 ? 40 : 3);
		uint64_t   *offsets = checked_malloc((segments + 1) * sizeof(uint64_t));
		uint64_t   *ks = checked_malloc((segments ? segments : 1) * sizeof(uint64_t));
		uint64_t   *keys;
		answer	   *outputs = calloc(segments ? segments : 1, sizeof(answer));
		key_distribution dist = (key_distribution) rng_below(DIST_COUNT);
		size_t		s;
		char		label[128];

		if (outputs == NULL)
			abort();
		offsets[0] = 0;
		for (s = 0; s < segments; s++)
		{
			uint64_t	length;
			uint64_t	choice = rng_below(10);

			if (choice == 0)
				length = 0;
			else if (choice == 1)
				length = 1;
			else if (round >= 50 && (choice == 2 || s == 0))
				length = capacity + rng_below(capacity);	/* several windows */
			else
				length = rng_below(round < 50 ? 3000 : 200000);
			offsets[s + 1] = offsets[s] + length;
			choice = rng_below(8);
			ks[s] = choice == 0 ? 0 : choice == 1 ? length : choice == 2 ? length + 1 + rng_below(10) :
				choice == 3 ? UINT64_MAX : choice == 4 ? 1 : 1 + rng_below(length / 4 + 1);
			if (round >= 50 && s == 0)
				ks[s] = 1 + rng_below(1000);	/* a running threshold over several windows */
		}
		keys = checked_malloc(offsets[segments] * sizeof(uint64_t));
		make_keys(type, dist, (int) rng_below(2), keys, offsets[segments]);
		snprintf(label, sizeof(label), "batch %s %s %zu segments", type->name,
				 distribution_names[dist], segments);
		if (test_cpu)
			check_batch(label, RADIK_DEVICE_CPU, type->key_bytes, keys, offsets, segments, ks,
						round % 3 != 0, outputs);
		if (test_gpu)
			check_batch(label, RADIK_DEVICE_GPU, type->key_bytes, keys, offsets, segments, ks,
						round % 3 != 1, outputs);
		for (s = 0; s < segments; s++)
			answer_free(&outputs[s]);
		free(outputs);
		free(offsets);
		free(ks);
		free(keys);
	}
	group_end();
}

/* The door's rules: argument checks and call order, the same on every device. */
static void
test_api_rules(radik_device device, const char *device_label)
{
	radik_selection *selection = NULL;
	radik_error err;
	void	   *keys;
	uint64_t   *ids;
	size_t		capacity;
	uint64_t	count;
	uint64_t	kth;
	int			valid;
	uint64_t	result_keys[4];
	uint64_t	result_ids[4];
	char		name[96];

#define EXPECT(cond) do { if (cond) case_passed(); else case_failed("%s: not true: %s (%s)", device_label, #cond, err.message); } while (0)

	snprintf(name, sizeof(name), "%s: argument checks and call order", device_label);
	group_begin(name);
	err.message[0] = '\0';

	EXPECT(radik_open(device, 2, 10, 0, &selection, &err) == RADIK_INVALID_ARGUMENT &&
		   selection == NULL);
	EXPECT(radik_open(device, 16, 10, 0, &selection, &err) == RADIK_INVALID_ARGUMENT);
	EXPECT(radik_open(device, 4, 10, 0, NULL, &err) == RADIK_INVALID_ARGUMENT);
	EXPECT(radik_open((radik_device) 7, 4, 10, 0, &selection, &err) == RADIK_INVALID_ARGUMENT);
	EXPECT(radik_push_chunk(NULL, 0, &err) == RADIK_INVALID_ARGUMENT);
	EXPECT(radik_finish(NULL, &count, &err) == RADIK_INVALID_ARGUMENT);
	radik_close(NULL);
	EXPECT(strlen(radik_selection_device_name(NULL)) > 0);

	/* a normal selection, with every out-of-order call tried on the way */
	EXPECT(radik_open(device, 4, 2, 0, &selection, &err) == RADIK_OK);
	if (selection != NULL)
	{
		EXPECT(strcmp(radik_selection_device_name(selection),
					  device == RADIK_DEVICE_CPU ? "cpu" : gpu_name) == 0);
		EXPECT(radik_push_chunk(selection, 1, &err) == RADIK_INVALID_ARGUMENT);	/* no buffer */
		EXPECT(radik_result(selection, result_keys, result_ids, &err) == RADIK_INVALID_ARGUMENT);
		EXPECT(radik_chunk_buffer(selection, NULL, &ids, &capacity, &err) ==
			   RADIK_INVALID_ARGUMENT);
		EXPECT(radik_chunk_buffer(selection, &keys, &ids, &capacity, &err) == RADIK_OK &&
			   capacity >= 3);
		EXPECT(radik_push_chunk(selection, capacity + 1, &err) == RADIK_INVALID_ARGUMENT);
		EXPECT(radik_push_keys(selection, result_keys, result_ids, 1, &err) ==
			   RADIK_INVALID_ARGUMENT);	/* a chunk buffer is out */
		EXPECT(radik_threshold(selection, &kth, &valid, &err) == RADIK_OK && valid == 0);
		EXPECT(radik_threshold(selection, NULL, &valid, &err) == RADIK_INVALID_ARGUMENT);
		((uint32_t *) keys)[0] = 30;
		((uint32_t *) keys)[1] = 10;
		((uint32_t *) keys)[2] = 20;
		ids[0] = 100;
		ids[1] = 101;
		ids[2] = 102;
		EXPECT(radik_push_chunk(selection, 3, &err) == RADIK_OK);
		EXPECT(radik_push_chunk(selection, 0, &err) == RADIK_INVALID_ARGUMENT);	/* no buffer */
		EXPECT(radik_push_keys(selection, NULL, result_ids, 1, &err) == RADIK_INVALID_ARGUMENT);
		EXPECT(radik_push_keys(selection, NULL, NULL, 0, &err) == RADIK_OK);
		EXPECT(radik_threshold(selection, &kth, &valid, &err) == RADIK_OK && valid == 1 &&
			   kth == 20);
		EXPECT(radik_finish(selection, NULL, &err) == RADIK_INVALID_ARGUMENT);
		EXPECT(radik_finish(selection, &count, &err) == RADIK_OK && count == 2);
		EXPECT(radik_finish(selection, &count, &err) == RADIK_INVALID_ARGUMENT);
		EXPECT(radik_chunk_buffer(selection, &keys, &ids, &capacity, &err) ==
			   RADIK_INVALID_ARGUMENT);
		EXPECT(radik_threshold(selection, &kth, &valid, &err) == RADIK_INVALID_ARGUMENT);
		EXPECT(radik_result(selection, result_keys, result_ids, &err) == RADIK_OK &&
			   result_keys[0] == 10 && result_ids[0] == 101 && result_keys[1] == 20 &&
			   result_ids[1] == 102);
		result_keys[0] = 0;
		EXPECT(radik_result(selection, result_keys, NULL, &err) == RADIK_OK &&
			   result_keys[0] == 10);
		EXPECT(radik_result(selection, NULL, NULL, &err) == RADIK_OK);
		radik_close(selection);
		selection = NULL;
	}

	/* k = 0 selects nothing, whatever is pushed */
	EXPECT(radik_open(device, 8, 0, 100, &selection, &err) == RADIK_OK);
	if (selection != NULL)
	{
		EXPECT(radik_chunk_buffer(selection, &keys, &ids, &capacity, &err) == RADIK_OK &&
			   capacity > 0);
		((uint64_t *) keys)[0] = 5;
		ids[0] = 1;
		EXPECT(radik_push_chunk(selection, 1, &err) == RADIK_OK);
		EXPECT(radik_threshold(selection, &kth, &valid, &err) == RADIK_OK && valid == 0);
		EXPECT(radik_finish(selection, &count, &err) == RADIK_OK && count == 0);
		EXPECT(radik_result(selection, result_keys, result_ids, &err) == RADIK_OK);
		radik_close(selection);
		selection = NULL;
	}

	/* closing in the middle of a selection, then releasing every cache, then selecting again */
	EXPECT(radik_open(device, 4, 5, 0, &selection, &err) == RADIK_OK);
	if (selection != NULL)
	{
		EXPECT(radik_chunk_buffer(selection, &keys, &ids, &capacity, &err) == RADIK_OK);
		radik_close(selection);
		selection = NULL;
	}
	radik_release_cache();
	EXPECT(radik_open(device, 4, 5, 0, &selection, &err) == RADIK_OK);
	radik_close(selection);
	selection = NULL;

	/* batch argument checks */
	{
		uint64_t	offsets[3] = {0, 2, 1};	/* decreasing */
		uint64_t	ks[2] = {1, 1};
		uint64_t	out_offsets[2] = {0, 1};
		uint64_t	out_counts[2];
		uint32_t	batch_keys[2] = {2, 1};

		EXPECT(radik_select_batch(device, 4, batch_keys, NULL, offsets, 2, ks, out_offsets,
								  result_keys, result_ids, out_counts, &err) ==
			   RADIK_INVALID_ARGUMENT);
		offsets[2] = 2;
		EXPECT(radik_select_batch(device, 3, batch_keys, NULL, offsets, 2, ks, out_offsets,
								  result_keys, result_ids, out_counts, &err) ==
			   RADIK_INVALID_ARGUMENT);
		EXPECT(radik_select_batch(device, 4, batch_keys, NULL, NULL, 2, ks, out_offsets,
								  result_keys, result_ids, out_counts, &err) ==
			   RADIK_INVALID_ARGUMENT);
		EXPECT(radik_select_batch(device, 4, NULL, NULL, offsets, 0, ks, out_offsets,
								  result_keys, result_ids, out_counts, &err) == RADIK_OK);
		EXPECT(radik_select_batch(device, 4, batch_keys, NULL, offsets, 2, ks, out_offsets,
								  result_keys, result_ids, out_counts, &err) == RADIK_OK &&
			   out_counts[0] == 1 && out_counts[1] == 0 && result_keys[0] == 1 &&
			   result_ids[0] == 1);
	}
#undef EXPECT
	group_end();
}

/* ---------------------------------------------------------------------------------------
 * Main: parse flags, probe the GPU, run every group.
 */
static void
test_caller_arrays(void)
{
	static const char *const types[] = {"int4", "int8", "float4", "float8"};
	size_t		capacity = tested_chunk_capacity;

	group_begin("entries pushed from the caller's own arrays, mixed with chunk buffers");
	for (size_t t = 0; t < LENGTH(types); t++)
	{
		const key_type *type = find_key_type(types[t]);
		size_t		n = 3 * capacity + 17;
		uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
		uint64_t	ks[] = {1, 100, capacity + 5, n};
		key_distribution dist = (key_distribution) rng_below(DIST_COUNT);
		char		label[128];

		make_keys(type, dist, (int) rng_below(2), keys, n);
		snprintf(label, sizeof(label), "%s %s from the caller", type->name,
				 distribution_names[dist]);
		check_input(label, type->key_bytes, keys, n, ks, (int) LENGTH(ks), CHUNK_CALLER, 1);
		free(keys);
	}
	group_end();
}

/*
 * What the GPU service does: many selections open at once, their pushes interleaved, each from
 * memory of the caller's that is registered with the GPU where there is one, and the workspaces
 * of some of them kept between rounds.  Every answer is checked against the reference.
 */
static void
test_many_open(radik_device device, const char *device_label)
{
	enum
	{
		OPEN = 12, ROUNDS = 3, KEPT = 8, PIECES = 5
	};
	const size_t n = 200000;
	const size_t piece = n / PIECES;
	uint64_t   *region;
	uint64_t   *sorted[OPEN];
	unsigned char *seen = calloc(n, 1);
	radik_error err;
	char		name[128];

	snprintf(name, sizeof(name), "%s: %d selections open at once, pushed from the caller's memory%s",
			 device_label, OPEN, device == RADIK_DEVICE_GPU ? " (registered)" : "");
	group_begin(name);
	if (seen == NULL || posix_memalign((void **) &region, 4096, 2 * OPEN * n * sizeof(uint64_t)) != 0)
		abort();
	for (int s = 0; s < OPEN; s++)
	{
		make_keys(find_key_type("float8"), (key_distribution) (s % DIST_COUNT), s & 1,
				  region + (size_t) s * n, n);
		sorted[s] = checked_malloc(n * sizeof(uint64_t));
		memcpy(sorted[s], region + (size_t) s * n, n * sizeof(uint64_t));
		qsort(sorted[s], n, sizeof(uint64_t), compare_keys_qsort);
		for (size_t i = 0; i < n; i++)
			region[(size_t) (OPEN + s) * n + i] = ID_BASE + i;
	}
	if (device == RADIK_DEVICE_GPU)
	{
		radik_status status = radik_register_host_memory(region, 2 * OPEN * n * sizeof(uint64_t),
														 &err);

		if (status == RADIK_OK)
			case_passed();
		else
			case_failed("radik_register_host_memory: %d %s", (int) status, err.message);
		radik_set_gpu_workspaces(KEPT);
	}
	for (int round = 0; round < ROUNDS; round++)
	{
		radik_selection *open[OPEN] = {NULL};
		uint64_t	ks[OPEN];
		int			ok = 1;

		for (int s = 0; s < OPEN && ok; s++)
		{
			ks[s] = s == 0 ? n + 1 : 1 + rng_below(s % 3 == 0 ? n : 1000);
			if (radik_open(device, 8, ks[s], piece, &open[s], &err) != RADIK_OK)
			{
				case_failed("round %d: radik_open %d: %s", round, s, err.message);
				ok = 0;
			}
		}
		for (int p = 0; p < PIECES && ok; p++)
			for (int s = 0; s < OPEN && ok; s++)
				if (radik_push_keys(open[s], region + (size_t) s * n + p * piece,
									region + (size_t) (OPEN + s) * n + p * piece, piece,
									&err) != RADIK_OK)
				{
					case_failed("round %d: radik_push_keys %d: %s", round, s, err.message);
					ok = 0;
				}
		for (int s = 0; s < OPEN && ok; s++)
		{
			answer		got = {0, NULL, NULL};
			char		what[128];

			snprintf(what, sizeof(what), "%s round %d selection %d k=%" PRIu64, device_label,
					 round, s, ks[s]);
			if (radik_finish(open[s], &got.count, &err) != RADIK_OK)
			{
				case_failed("%s: radik_finish: %s", what, err.message);
				ok = 0;
				break;
			}
			got.keys = checked_malloc(got.count * sizeof(uint64_t));
			got.ids = checked_malloc(got.count * sizeof(uint64_t));
			if (radik_result(open[s], got.keys, got.ids, &err) != RADIK_OK)
			{
				case_failed("%s: radik_result: %s", what, err.message);
				ok = 0;
			}
			else if (!check_answer(region + (size_t) s * n, n, ks[s], sorted[s], ID_BASE, &got,
								   seen, what))
				ok = 0;
			answer_free(&got);
		}
		for (int s = 0; s < OPEN; s++)
			radik_close(open[s]);
		if (ok)
			case_passed();
	}
	if (device == RADIK_DEVICE_GPU)
		radik_set_gpu_workspaces(1);
	for (int s = 0; s < OPEN; s++)
		free(sorted[s]);
	free(seen);
	group_end();
	/* the registered region stays allocated: it is locked for the life of the process */
}

static void
run_device_groups(void)
{
	test_small_inputs();
	test_powers_of_two();
	test_small_chunks();
	test_large_sorted_answers();
	test_thresholds();
	test_caller_arrays();
	if (test_cpu)
		test_many_open(RADIK_DEVICE_CPU, "cpu");
	if (test_gpu)
		test_many_open(RADIK_DEVICE_GPU, "gpu");
	if (test_cpu)
		test_chunk_boundaries(cpu_chunk_capacity);
	if (test_gpu && (!test_cpu || gpu_chunk_capacity != cpu_chunk_capacity))
		test_chunk_boundaries(gpu_chunk_capacity);
	test_batches();
}

/*
 * Stream keys[0..n) through a GPU selection of the k smallest until a call fails; the first
 * failing call's status (RADIK_OK if none did), the selection left open in *selection.
 */
static radik_status
stream_until_failure(const uint64_t *keys, size_t n, uint64_t k, radik_selection **selection,
					 radik_error *err)
{
	radik_status status;
	size_t		pushed = 0;
	uint64_t	count;

	status = radik_open(RADIK_DEVICE_GPU, 8, k, n, selection, err);
	while (status == RADIK_OK && pushed < n)
	{
		void	   *chunk_keys;
		uint64_t   *chunk_ids;
		size_t		capacity;
		size_t		size;

		status = radik_chunk_buffer(*selection, &chunk_keys, &chunk_ids, &capacity, err);
		if (status != RADIK_OK)
			break;
		size = capacity < n - pushed ? capacity : n - pushed;
		memcpy(chunk_keys, keys + pushed, size * sizeof(uint64_t));
		for (size_t i = 0; i < size; i++)
			chunk_ids[i] = ID_BASE + pushed + i;
		status = radik_push_chunk(*selection, size, err);
		pushed += size;
	}
	if (status == RADIK_OK)
		status = radik_finish(*selection, &count, err);
	return status;
}

/*
 * radik_gpu_start_in_background, called twice before the first probe (main): in a CUDA build it
 * starts a thread, which a GPU takes a tenth of a second or more to finish (the driver's start
 * and the context), so radik_gpu_starting() said 1 right after the call; the second call, made
 * while the thread runs, is a no-op that also answers RADIK_OK.  radik_gpu_probe waited for the
 * thread, so afterwards nothing is starting, and asking again starts nothing.  In a build without
 * CUDA both calls answer RADIK_NO_DEVICE, as the probe does.
 */
static void
test_background_start(radik_status first, int starting_at_once, radik_status second,
					  radik_status probe)
{
	radik_error err;

	group_begin("gpu start in the background");
	if (first == RADIK_OK && second == RADIK_OK)
		case_passed();
	else if (first == RADIK_NO_DEVICE && second == RADIK_NO_DEVICE && probe == RADIK_NO_DEVICE)
		case_passed();
	else
		case_failed("background start answered %d then %d, the probe %d", (int) first,
					(int) second, (int) probe);
	if (probe != RADIK_OK || starting_at_once == 1)
		case_passed();
	else
		case_failed("the GPU's start was not running right after radik_gpu_start_in_background");
	if (radik_gpu_starting() == 0)
		case_passed();
	else
		case_failed("a background start still runs after radik_gpu_probe");
	if (radik_gpu_start_in_background(1 << 20, &err) == first && radik_gpu_starting() == 0)
		case_passed();
	else
		case_failed("a background start after the probe did not answer as the first");
	group_end();
}

/*
 * radik_set_gpu_memory_limit (GPU only; the SQL side falls back to the CPU on the status it
 * causes).  Under a limit that leaves room, selections are exact; lowered far below what a
 * selection needs, the next one fails with RADIK_OUT_OF_MEMORY, saying why, and refuses later
 * calls (the cache the earlier ones grew is given back at that open); with no limit again,
 * selections are exact again.
 */
static void
test_gpu_memory_limit(void)
{
	const size_t n = 300000;
	const uint64_t ks[] = {1000, 150000};
	uint64_t   *keys = checked_malloc(n * sizeof(uint64_t));
	radik_selection *selection = NULL;
	radik_error err;
	radik_status status;
	uint64_t	count;

	for (size_t i = 0; i < n; i++)
		keys[i] = rng_next();
	group_begin("gpu memory limit: exact within it, out of memory beyond it");
	radik_set_gpu_memory_limit(UINT64_C(1) << 31);
	check_input("under a 2 GiB limit", 8, keys, n, ks, (int) LENGTH(ks), CHUNK_FULL, 0);

	radik_set_gpu_memory_limit(4096);
	err.message[0] = '\0';
	status = stream_until_failure(keys, n, ks[0], &selection, &err);
	if (status == RADIK_OUT_OF_MEMORY && strstr(err.message, "limit") != NULL)
		case_passed();
	else
		case_failed("under a 4096-byte limit: status %d (%s), want RADIK_OUT_OF_MEMORY naming "
					"the limit", (int) status, err.message);
	if (selection != NULL && status != RADIK_OK &&
		radik_finish(selection, &count, &err) != RADIK_INVALID_ARGUMENT)
		case_failed("a selection failed for the limit accepted radik_finish");
	radik_close(selection);

	radik_set_gpu_memory_limit(0);
	check_input("with no limit again", 8, keys, n, ks, (int) LENGTH(ks), CHUNK_FULL, 0);
	group_end();
	free(keys);
}

/* The capacity of a device's chunk buffers, from a throwaway selection (0 if it fails). */
static size_t
learn_chunk_capacity(radik_device device)
{
	radik_selection *selection = NULL;
	radik_error err;
	void	   *keys;
	uint64_t   *ids;
	size_t		capacity = 0;

	err.message[0] = '\0';
	if (radik_open(device, 8, 1, 0, &selection, &err) != RADIK_OK ||
		radik_chunk_buffer(selection, &keys, &ids, &capacity, &err) != RADIK_OK)
	{
		printf("engine_test: could not learn the %s chunk capacity: %s\n",
			   device == RADIK_DEVICE_CPU ? "cpu" : "gpu", err.message);
		capacity = 0;
	}
	radik_close(selection);
	return capacity;
}

int
main(int argc, char **argv)
{
	const char *seed_text = getenv("RADIK_TEST_SEED");
	const char *small_selection = getenv("RADIK_GPU_SMALL_SELECTION");
	int			cpu_only = 0;
	int			gpu_only = 0;
	int			general_rounds = small_selection != NULL && strcmp(small_selection, "off") == 0;
	radik_error err;
	radik_status probe;
	radik_status background_start = RADIK_NO_DEVICE;
	radik_status background_again = RADIK_NO_DEVICE;
	int			starting_at_once = 0;
	int			i;

	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--cpu-only") == 0)
			cpu_only = 1;
		else if (strcmp(argv[i], "--gpu-only") == 0)
			gpu_only = 1;
		else if (strcmp(argv[i], "--general-rounds") == 0)
			general_rounds = 1;
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed_text = argv[++i];
		else
		{
			fprintf(stderr, "usage: %s [--cpu-only | --gpu-only] [--general-rounds] [--seed N]\n",
					argv[0]);
			return 2;
		}
	}
	if (cpu_only && gpu_only)
	{
		fprintf(stderr, "engine_test: --cpu-only and --gpu-only exclude each other\n");
		return 2;
	}
	seed = seed_text != NULL ? strtoull(seed_text, NULL, 0) :
		(uint64_t) time(NULL) ^ ((uint64_t) clock() << 32);
	rng_state = seed;
	printf("engine_test: seed %" PRIu64 " (replay with --seed %" PRIu64 ")\n", seed, seed);
	if (general_rounds)
	{
#ifdef RADIK_GPU_SWITCHES
		radik_gpu_set_small_selection(0);
		printf("engine_test: the GPU's one-pass small-k path is off (the general rounds only)\n");
#else
		printf("engine_test: built without RADIK_GPU_SWITCHES: --general-rounds changes nothing\n");
#endif
	}

	err.message[0] = '\0';
	/* the GPU is started in the background first (as the PostgreSQL side does), then probed */
	if (!cpu_only)
	{
		radik_error start_err;

		background_start = radik_gpu_start_in_background(1 << 20, &start_err);
		starting_at_once = radik_gpu_starting();
		background_again = radik_gpu_start_in_background(1 << 20, &start_err);
	}
	probe = cpu_only ? RADIK_NO_DEVICE : radik_gpu_probe(gpu_name, sizeof(gpu_name), &err);
	if (probe == RADIK_OK)
		printf("engine_test: GPU found, testing it too\n");
	else if (!cpu_only)
		printf("engine_test: no GPU (%s): testing the CPU twin only\n", err.message);
	test_gpu = probe == RADIK_OK;
	test_cpu = !gpu_only;
	if (gpu_only && !test_gpu)
	{
		printf("engine_test: --gpu-only but no GPU\n");
		printf("0 passed, 1 failed\n");
		return 1;
	}

	if (test_cpu)
		cpu_chunk_capacity = learn_chunk_capacity(RADIK_DEVICE_CPU);
	if (test_gpu)
		gpu_chunk_capacity = learn_chunk_capacity(RADIK_DEVICE_GPU);
	if ((test_cpu && cpu_chunk_capacity < 4) || (test_gpu && gpu_chunk_capacity < 4))
	{
		printf("engine_test: a chunk capacity below 4 entries\n");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	if (test_cpu && test_gpu)
		tested_chunk_capacity = cpu_chunk_capacity < gpu_chunk_capacity ?
			cpu_chunk_capacity : gpu_chunk_capacity;
	else
		tested_chunk_capacity = test_cpu ? cpu_chunk_capacity : gpu_chunk_capacity;
	if (test_cpu)
		printf("engine_test: cpu chunk capacity %zu\n", cpu_chunk_capacity);
	if (test_gpu)
		printf("engine_test: gpu chunk capacity %zu\n", gpu_chunk_capacity);

	test_key_maps();
	if (!cpu_only)
		test_background_start(background_start, starting_at_once, background_again, probe);
	if (test_cpu)
		test_api_rules(RADIK_DEVICE_CPU, "cpu");
	if (test_gpu)
		test_api_rules(RADIK_DEVICE_GPU, "gpu");
	else if (!cpu_only)
	{
		/* without a GPU, asking for one is the normal "no device" answer */
		radik_selection *selection = NULL;

		group_begin("gpu absent: radik_open answers RADIK_NO_DEVICE");
		if (radik_open(RADIK_DEVICE_GPU, 4, 1, 0, &selection, &err) == RADIK_NO_DEVICE &&
			selection == NULL && err.message[0] != '\0')
			case_passed();
		else
			case_failed("radik_open on the GPU did not answer RADIK_NO_DEVICE");
		group_end();
	}
	run_device_groups();
	if (test_gpu)
		test_gpu_memory_limit();
	radik_release_cache();

	printf("%ld passed, %ld failed\n", total_passed, total_failed);
	return total_failed == 0 ? 0 : 1;
}
