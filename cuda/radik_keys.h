/*
 * radik_keys.h
 *	  Maps from PostgreSQL's fixed-width sortable values to unsigned keys whose unsigned order is
 *	  PostgreSQL's default btree order, usable from C (src/) and from CUDA device code.
 *
 * Radix selection compares bit patterns, so every value is first turned into an unsigned integer
 * of its own width (32 or 64 bits):
 *  - signed integers (int2, int4, int8, date, time, timestamp, timestamptz are all signed
 *    integers underneath): flip the sign bit, so negative values come first;
 *  - floats: positive values flip the sign bit, negative values flip every bit, so the order of
 *    the bit patterns becomes the numeric order.  Two PostgreSQL rules are folded in first:
 *    -0.0 equals +0.0 (both map to the key of +0.0), and every NaN, whatever its sign or payload,
 *    equals every other NaN and sorts above +Infinity (all map to one key just above +Inf's);
 *  - unsigned values (oid) are already keys; bool is 0 or 1.
 * Descending order is the bitwise complement of the ascending key.
 */
#ifndef RADIK_KEYS_H
#define RADIK_KEYS_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define RADIK_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define RADIK_HOST_DEVICE static inline
#endif

RADIK_HOST_DEVICE uint32_t
radik_key_from_int32(int32_t v)
{
	return (uint32_t) v ^ UINT32_C(0x80000000);
}

RADIK_HOST_DEVICE uint64_t
radik_key_from_int64(int64_t v)
{
	return (uint64_t) v ^ UINT64_C(0x8000000000000000);
}

RADIK_HOST_DEVICE uint32_t
radik_key_from_int16(int16_t v)
{
	return radik_key_from_int32((int32_t) v);
}

RADIK_HOST_DEVICE uint32_t
radik_key_from_float4(float v)
{
	uint32_t	bits;

	if (v != v)
		return UINT32_C(0xFF800001);	/* every NaN: one above +Infinity's key 0xFF800000 */
	if (v == 0.0f)
		v = 0.0f;				/* -0.0 == +0.0 */
	memcpy(&bits, &v, sizeof(bits));
	return (bits & UINT32_C(0x80000000)) ? ~bits : (bits | UINT32_C(0x80000000));
}

/*
 * radik_key_from_float4 of the float whose bits are bits, computed on the bits without a branch
 * (the CPU side maps a page's keys with it; the engine's tests check it against
 * radik_key_from_float4 on every bit pattern).
 */
RADIK_HOST_DEVICE uint32_t
radik_key_from_float4_bits(uint32_t bits)
{
	const uint32_t plain = bits == UINT32_C(0x80000000) ? 0 : bits;	/* -0.0 == +0.0 */
	const uint32_t flip = (UINT32_C(0) - (plain >> 31)) | UINT32_C(0x80000000);

	/* every NaN one above +Infinity's key; else negatives flipped whole, positives' sign bit */
	return (plain & UINT32_C(0x7FFFFFFF)) > UINT32_C(0x7F800000) ? UINT32_C(0xFF800001) :
		plain ^ flip;
}

RADIK_HOST_DEVICE uint64_t
radik_key_from_float8(double v)
{
	uint64_t	bits;

	if (v != v)
		return UINT64_C(0xFFF0000000000001);	/* every NaN: one above +Infinity's key */
	if (v == 0.0)
		v = 0.0;				/* -0.0 == +0.0 */
	memcpy(&bits, &v, sizeof(bits));
	return (bits & UINT64_C(0x8000000000000000)) ? ~bits : (bits | UINT64_C(0x8000000000000000));
}

RADIK_HOST_DEVICE uint32_t
radik_key_from_uint32(uint32_t v)
{
	return v;
}

RADIK_HOST_DEVICE uint32_t
radik_key_from_bool(int v)
{
	return v ? 1u : 0u;
}

/* The inverse maps, for tests and for reading a threshold back as a value. */
RADIK_HOST_DEVICE int32_t
radik_int32_from_key(uint32_t k)
{
	return (int32_t) (k ^ UINT32_C(0x80000000));
}

RADIK_HOST_DEVICE int64_t
radik_int64_from_key(uint64_t k)
{
	return (int64_t) (k ^ UINT64_C(0x8000000000000000));
}

RADIK_HOST_DEVICE float
radik_float4_from_key(uint32_t k)
{
	uint32_t	bits = (k & UINT32_C(0x80000000)) ? (k & UINT32_C(0x7FFFFFFF)) : ~k;
	float		v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

RADIK_HOST_DEVICE double
radik_float8_from_key(uint64_t k)
{
	uint64_t	bits = (k & UINT64_C(0x8000000000000000)) ?
		(k & UINT64_C(0x7FFFFFFFFFFFFFFF)) : ~k;
	double		v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

/* Descending order: the complement, within the key's width. */
RADIK_HOST_DEVICE uint32_t
radik_key32_descending(uint32_t k)
{
	return ~k;
}

RADIK_HOST_DEVICE uint64_t
radik_key64_descending(uint64_t k)
{
	return ~k;
}

#endif							/* RADIK_KEYS_H */
