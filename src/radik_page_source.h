/*
 * radik_page_source.h
 *	  Where the extractor's (and the row fetches') heap pages come from: a pin on the shared
 *	  buffer that holds the block, or, for a block that no shared buffer holds, a private copy
 *	  taken straight from the operating system's page cache (radik_page_source.c says when, and
 *	  why that is exact).
 *
 * A scan that PostgreSQL would read through a small ring of buffers (a table larger than a
 * quarter of shared_buffers) reads every page it does not find in shared buffers from the page
 * cache, one read() of 8 kB into the ring at a time.  A copy out of a mapping of the table's file
 * costs the same memory traffic without the system call and the buffer replacement, which is
 * most of what reading such a table costs radik.
 */
#ifndef RADIK_PAGE_SOURCE_H
#define RADIK_PAGE_SOURCE_H

#include "postgres.h"

#include "access/heapam.h"
#include "storage/buf.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

/* A page being read: pinned in buffer, or (buffer invalid) a copy of an all-visible page. */
typedef struct RadikPageRef
{
	Buffer		buffer;
	Page		page;
} RadikPageRef;

/* A page source's view of one window of one segment file, mapped read-only. */
typedef struct RadikFileWindow
{
	char	   *base;			/* NULL: nothing mapped */
	size_t		bytes;
	BlockNumber first;			/* the window's first block */
	BlockNumber end;			/* one past its last */
} RadikFileWindow;

typedef struct RadikPageSource
{
	Relation	rel;
	BufferAccessStrategy strategy;	/* the scan's ring (NULL: none) */
	BlockNumber last_block;		/* the block pinned last, and its buffer (see pin_block) */
	Buffer		last_buffer;
	int			buffer_step;	/* between the buffers of the last two consecutive blocks */
	uint64		pins;			/* pages pinned */
	int			guess_misses;	/* wrong guesses of a block's buffer in a row */

	/* copies from the page cache (window is NULL when the source does not take them) */
	PGAlignedBlock *copies;		/* a scan's two: the current page and the one read ahead */
	uint64		pages_copied;
	BlockNumber nblocks;		/* the scan's blocks: never map beyond them */
	Buffer		vm_buffer;		/* the visibility map page last looked at */
	RadikFileWindow *window;	/* in memory that outlives an error, whose reset unmaps it */
	bool		window_failed;	/* mapping the file failed: read through shared buffers */
	bool		populate;		/* map a window's pages at once (a serial walk of every block) */
	bool		in_buffers;		/* the last block looked up was in a shared buffer */
} RadikPageSource;

/*
 * Start reading rel's pages for the heap scan scan (its snapshot, ring and blocks decide whether
 * pages may be copied from the page cache; see radik_page_source.c).
 */
extern void radik_page_source_begin(RadikPageSource *source, Relation rel, HeapScanDesc scan);

/*
 * Start reading chosen blocks of rel, all below nblocks, for rows seen under snapshot (radik's
 * fetches by TID): pinned without a ring, or, with may_copy where a scan of rel would read it
 * through one (more than a quarter of shared_buffers), copied from the page cache as a scan's
 * are.
 */
extern void radik_page_source_begin_fetch(RadikPageSource *source, Relation rel,
										  Snapshot snapshot, BlockNumber nblocks, bool may_copy);

/* block's page: release it with radik_page_source_release before reading two more. */
extern RadikPageRef radik_page_source_read(RadikPageSource *source, BlockNumber block);

/*
 * block's page, as radik_page_source_read, but a copy from the page cache is made into copy
 * (BLCKSZ bytes the caller keeps until it releases the page); see radik_page_source_may_copy.
 */
extern RadikPageRef radik_page_source_read_into(RadikPageSource *source, BlockNumber block,
												Page copy);

/*
 * block's page for reading only the rows at offsets, as radik_page_source_read_into, but a copy
 * from the page cache may hold only the page's header, its line pointers and those rows (the
 * rest of copy left as it was): a page read for a row or two is not copied whole.
 */
extern RadikPageRef radik_page_source_read_rows_into(RadikPageSource *source, BlockNumber block,
													 Page copy, const OffsetNumber *offsets,
													 int noffsets);

/* Whether the source may copy pages from the page cache (else every page is pinned). */
static inline bool
radik_page_source_may_copy(const RadikPageSource *source)
{
	return source->window != NULL && !source->window_failed;
}

static inline void
radik_page_source_release(RadikPageRef *ref)
{
	if (BufferIsValid(ref->buffer))
		ReleaseBuffer(ref->buffer);
	ref->buffer = InvalidBuffer;
	ref->page = NULL;
}

/*
 * Where block's page lies in the page cache, when the source would copy it from there and has
 * its part of the file mapped: an address to prefetch from, never to read (NULL otherwise).
 */
static inline const char *
radik_page_source_peek(const RadikPageSource *source, BlockNumber block)
{
	const RadikFileWindow *window = source->window;

	if (window == NULL || window->base == NULL || block < window->first || block >= window->end)
		return NULL;
	return window->base + (size_t) (block - window->first) * BLCKSZ;
}

/* Release what the source holds (pages already released by the caller). */
extern void radik_page_source_end(RadikPageSource *source);

#endif							/* RADIK_PAGE_SOURCE_H */
