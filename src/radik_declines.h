/*
 * radik_declines.h
 *	  Why radik left a query to PostgreSQL's plan, said at DEBUG1 and under EXPLAIN (VERBOSE)'s
 *	  plan (radik_declines.c).
 */
#ifndef RADIK_DECLINES_H
#define RADIK_DECLINES_H

#include "postgres.h"

/*
 * The planner declines the query or one of its shapes for the reason given (a phrase in lower
 * case, as "ORDER BY text: ..."): a DEBUG1 message, and, while EXPLAIN (VERBOSE) plans the
 * query, a "RadiK Declined" line under its plan.
 */
extern void radik_decline(const char *format,...) pg_attribute_printf(1, 2);

#endif							/* RADIK_DECLINES_H */
