/*
 * radik_page_source.c
 *	  The extractor's heap pages (radik_page_source.h): pinned in shared buffers, or copied from
 *	  the operating system's page cache where no shared buffer holds them.
 *
 * Why a copy from the page cache is the page ReadBuffer would have read.  PostgreSQL writes a
 * block of a table only from a shared buffer that holds it (a checkpoint, the background writer,
 * a backend evicting the buffer), and the block stays in the buffer mapping table until that
 * write has ended; a block enters the table (BufferAlloc) only under the exclusive lock of its
 * mapping partition.  The other writes to a table's file need a lock that conflicts with the
 * scan's AccessShareLock (truncation, a new file), or add blocks beyond the scan's last.  So while
 * this process holds the block's partition lock in shared mode and does not find the block in
 * the table, the file holds the block's newest content and nothing can write to it: the copy
 * taken then, under that lock, is exact.  A block found in the table is pinned as usual.
 *
 * A copy has no buffer, so it is used only where PostgreSQL's own scan would not look at the
 * tuples' visibility at all: an all-visible page (PD_ALL_VISIBLE on the copy itself), a snapshot
 * not taken during recovery, outside serializable transactions (whose conflict checks want a
 * buffer).  Setting hint bits or pruning is left to scans that read the page into a buffer.  The
 * visibility map is asked first, so that pages which are not all-visible are not copied for
 * nothing; every page that is not used (not all-visible, new, or failing the checks PostgreSQL
 * makes when it reads a page: the header, and the checksum where the cluster has them) is read
 * through shared buffers instead, where PostgreSQL reports what is wrong with it.
 *
 * Only scans that read the table through a ring of buffers copy pages (a table larger than a
 * quarter of shared_buffers, whose pages PostgreSQL does not keep either), never a temporary
 * table (local buffers), and not where PostgreSQL reads its files with direct I/O (their pages
 * then bypass the page cache).  The file is mapped a window at a time, all its pages at once for
 * a serial walk of every block (one call instead of a page fault every 64 kB; measured 5-7%
 * faster on the GPU host), as they are read for a process of a parallel scan (which reads some
 * of the window's blocks) or a walk of chosen blocks; each block's memory is touched before the
 * partition lock is taken, so that a page the kernel must read from disk is waited for outside
 * it.  While the blocks looked up are found in shared buffers (a table read into them that the
 * buffer guesses below do not follow), each is looked up before its memory is touched, so that
 * a scan of such a table maps no window and takes no page fault; the first block not found
 * there goes back to touching first.
 * The fetches of selected rows by their TIDs (radik_fetch.c) read through a source as well
 * (radik_page_source_begin_fetch): without a ring, and copying only where a scan of the table
 * would read it through one; where the cluster has no data checksums, a fetch copies only the
 * page's header, its line pointers and the rows it reads, which are exact for the same reason.
 * radik.page_cache_reads turns copying off.
 */
#include "postgres.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include "radik_compat.h"
#include "radik_page_source.h"
#include "radik_settings.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "common/relpath.h"
#include "executor/instrument.h"
#include "pgstat.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/checksum.h"
#include "storage/fd.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/*
 * pin_block's guesses of a block's buffer: after this many wrong ones in a row it guesses only
 * on every GUESS_PROBE_PAGES-th page, until a guess is right again.
 */
#define GUESS_MISSES_TO_PAUSE 4
#define GUESS_PROBE_PAGES 64

/* Blocks of a table's file mapped at once (16 MB of 8 kB blocks). */
#define WINDOW_BLOCKS Min(2048, RELSEG_SIZE)

/* Memory page size that touching a block's memory steps by. */
#define TOUCH_STRIDE 4096

/*
 * Raise the usage count of a buffer pinned by ReadRecentBuffer as ReadBuffer's pin would have
 * (PinBuffer: up to the maximum without a strategy, from 0 to 1 with one), which PostgreSQL 15's
 * ReadRecentBuffer does not do: else a table scanned only by radik would lose its place in
 * shared buffers.
 */
static void
count_buffer_use(Buffer buffer, BufferAccessStrategy strategy)
{
	BufferDesc *desc = GetBufferDescriptor(buffer - 1);
	uint32		buf_state = LockBufHdr(desc);
	uint32		usage = BUF_STATE_GET_USAGECOUNT(buf_state);

	if (strategy == NULL ? usage < BM_MAX_USAGE_COUNT : usage == 0)
		buf_state += BUF_USAGECOUNT_ONE;
	UnlockBufHdr(desc, buf_state);
}

/* Pin guess if it holds block, as ReadBuffer's hit would: true when it did. */
static bool
pin_recent_buffer(RadikPageSource *source, BlockNumber block, Buffer guess)
{
	Relation	rel = source->rel;

	if (!ReadRecentBuffer(rel->rd_locator, MAIN_FORKNUM, block, guess))
		return false;
	count_buffer_use(guess, source->strategy);
	pgstat_count_buffer_read(rel);
	pgstat_count_buffer_hit(rel);
	return true;
}

/*
 * Pin block with the scan's buffer strategy.  Looking a block up in the shared buffer mapping
 * costs a few cache misses that depend on each other, on every page; but a table read into
 * shared buffers in block order mostly holds consecutive blocks in buffers a fixed step apart
 * (the next buffer after pg_prewarm; the one before after a bulk write, whose ring takes free
 * buffers from the top down).  So when the last block pinned was the one before, the buffer that
 * step beyond its buffer is tried first: ReadRecentBuffer pins it only if it still holds this
 * very block (else the lookup is made as usual, and the step between the two blocks' buffers is
 * learnt); the hit is counted, and the buffer's usage raised, as ReadBuffer would.  Where the
 * guesses keep missing, only one page in GUESS_PROBE_PAGES is guessed.  found is the buffer a
 * lookup just saw holding the block, or InvalidBuffer.
 */
static Buffer
pin_block(RadikPageSource *source, BlockNumber block, Buffer found)
{
	bool		follows_last = block == source->last_block + 1 && source->last_buffer > 0;
	Buffer		buffer;

	if (BufferIsValid(found) && pin_recent_buffer(source, block, found))
		buffer = found;
	else
		buffer = ReadBufferExtended(source->rel, MAIN_FORKNUM, block, RBM_NORMAL,
									source->strategy);
	if (follows_last && buffer > 0)
		source->buffer_step = buffer - source->last_buffer;
	source->last_block = block;
	source->last_buffer = buffer;
	return buffer;
}

/* The guess of pin_block, when it is worth making and right; else InvalidBuffer. */
static inline Buffer
pin_guessed_buffer(RadikPageSource *source, BlockNumber block)
{
	bool		follows_last = block == source->last_block + 1 && source->last_buffer > 0;
	Buffer		guess = source->last_buffer + source->buffer_step;

	source->pins++;
	if (!follows_last || guess <= 0 || guess > NBuffers ||
		(source->guess_misses >= GUESS_MISSES_TO_PAUSE &&
		 source->pins % GUESS_PROBE_PAGES != 0))
		return InvalidBuffer;
	if (!pin_recent_buffer(source, block, guess))
	{
		source->guess_misses++;
		return InvalidBuffer;
	}
	source->guess_misses = 0;
	source->last_block = block;
	source->last_buffer = guess;
	return guess;
}

/* Unmap the source's window (a memory context reset callback too: errors unmap it). */
static void
unmap_window(void *arg)
{
	RadikFileWindow *window = (RadikFileWindow *) arg;

	if (window->base != NULL)
		munmap(window->base, window->bytes);
	window->base = NULL;
}

/*
 * Map the window of the table's file that holds block: false when that fails (the source then
 * reads through shared buffers from now on).  A window lies within one segment file and below
 * the scan's last block, which the file already holds.
 */
static bool
map_window(RadikPageSource *source, BlockNumber block)
{
	RadikFileWindow *window = source->window;
	BlockNumber segment = block / RELSEG_SIZE;
	BlockNumber segment_first = segment * RELSEG_SIZE;
	BlockNumber first = segment_first + (block - segment_first) / WINDOW_BLOCKS * WINDOW_BLOCKS;
	BlockNumber end = Min(Min(first + WINDOW_BLOCKS, segment_first + RELSEG_SIZE),
						  source->nblocks);
	char		path[MAXPGPATH];
	struct stat st;
	void	   *base;
	int			fd;

	unmap_window(window);
#if PG_VERSION_NUM >= 180000
	strlcpy(path, relpathperm(source->rel->rd_locator, MAIN_FORKNUM).str, sizeof(path));
#else
	{
		char	   *relation_path = relpathperm(source->rel->rd_locator, MAIN_FORKNUM);

		strlcpy(path, relation_path, sizeof(path));
		pfree(relation_path);
	}
#endif
	if (segment > 0)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), ".%u", segment);

	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		return false;
	base = MAP_FAILED;
	if (fstat(fd, &st) == 0 && st.st_size >= (off_t) (end - segment_first) * BLCKSZ)
		base = mmap(NULL, (size_t) (end - first) * BLCKSZ, PROT_READ,
					MAP_SHARED | (source->populate ? MAP_POPULATE : 0), fd,
					(off_t) (first - segment_first) * BLCKSZ);
	CloseTransientFile(fd);
	if (base == MAP_FAILED)
		return false;
	window->base = base;
	window->bytes = (size_t) (end - first) * BLCKSZ;
	window->first = first;
	window->end = end;
	return true;
}

/* The buffer that holds block, looked up under its mapping partition's lock; -1 if none. */
static int
lookup_block(RadikPageSource *source, BlockNumber block, bool keep_lock, LWLock **lock)
{
	BufferTag	tag;
	uint32		hash;
	int			buf_id;

#if PG_VERSION_NUM >= 160000
	InitBufferTag(&tag, &source->rel->rd_locator, MAIN_FORKNUM, block);
#else
	INIT_BUFFERTAG(tag, source->rel->rd_locator, MAIN_FORKNUM, block);
#endif
	hash = BufTableHashCode(&tag);
	*lock = BufMappingPartitionLock(hash);
	LWLockAcquire(*lock, LW_SHARED);
	buf_id = BufTableLookup(&tag, hash);
	if (!keep_lock)
		LWLockRelease(*lock);
	return buf_id;
}

/* The checks PageIsVerifiedExtended makes of a page read from disk, for a page that is not new. */
static bool
page_verified(Page page, BlockNumber block)
{
	PageHeader	header = (PageHeader) page;

	if (DataChecksumsEnabled() && pg_checksum_page((char *) page, block) != header->pd_checksum)
		return false;
	return (header->pd_flags & ~PD_VALID_FLAG_BITS) == 0 &&
		header->pd_lower <= header->pd_upper &&
		header->pd_upper <= header->pd_special &&
		header->pd_special <= BLCKSZ &&
		header->pd_special == MAXALIGN(header->pd_special);
}

/*
 * Copy only a page's header, its line pointers and the rows at offsets into copy, each row's
 * bytes where they lie on the page: false, the copy unusable, where one of those rows has no
 * storage within the page (the page is then read through shared buffers, where PostgreSQL says
 * what is wrong with it).  Called under the block's partition lock.
 */
static bool
copy_page_rows(Page copy, const char *from, const OffsetNumber *offsets, int noffsets)
{
	Size		lower;

	memcpy(copy, from, SizeOfPageHeaderData);
	lower = ((PageHeader) copy)->pd_lower;
	if (lower < SizeOfPageHeaderData || lower > BLCKSZ)
		return false;
	memcpy((char *) copy + SizeOfPageHeaderData, from + SizeOfPageHeaderData,
		   lower - SizeOfPageHeaderData);
	for (int i = 0; i < noffsets; i++)
	{
		OffsetNumber offnum = offsets[i];
		ItemId		lp;
		Size		offset;
		Size		length;

		if (offnum < FirstOffsetNumber || offnum > PageGetMaxOffsetNumber(copy))
			return false;
		lp = PageGetItemId(copy, offnum);
		offset = ItemIdGetOffset(lp);
		length = ItemIdGetLength(lp);
		if (!ItemIdIsNormal(lp) || offset < lower || offset + length > BLCKSZ)
			return false;
		memcpy((char *) copy + offset, from + offset, length);
	}
	return true;
}

/*
 * Copy block into copy from the page cache, if no shared buffer holds it and the copy can stand
 * for the page (see above): true.  Else false, with *found the buffer the lookup saw holding the
 * block (InvalidBuffer if none, or if none was looked up).  With offsets not NULL, and where the
 * cluster has no data checksums (a checksum is of the whole page), only the rows at offsets are
 * copied with the page's header and line pointers (copy_page_rows).
 */
static bool
copy_block(RadikPageSource *source, BlockNumber block, Page copy, const OffsetNumber *offsets,
		   int noffsets, Buffer *found)
{
	RadikFileWindow *window = source->window;
	LWLock	   *partition_lock;
	const char *from;
	int			buf_id;
	bool		copied_rows = true;

	*found = InvalidBuffer;
	if (source->in_buffers)
	{
		buf_id = lookup_block(source, block, false, &partition_lock);
		if (buf_id >= 0)
		{
			*found = buf_id + 1;
			return false;
		}
		source->in_buffers = false;
	}
	if (!VM_ALL_VISIBLE(source->rel, block, &source->vm_buffer))
		return false;
	if ((window->base == NULL || block < window->first || block >= window->end) &&
		!map_window(source, block))
	{
		source->window_failed = true;
		return false;
	}
	from = window->base + (size_t) (block - window->first) * BLCKSZ;
	for (int offset = 0; offset < BLCKSZ; offset += TOUCH_STRIDE)
		(void) *(volatile const char *) (from + offset);

	if (DataChecksumsEnabled())
		offsets = NULL;
	buf_id = lookup_block(source, block, true, &partition_lock);
	if (buf_id < 0 && offsets == NULL)
		memcpy(copy, from, BLCKSZ);
	else if (buf_id < 0)
		copied_rows = copy_page_rows(copy, from, offsets, noffsets);
	LWLockRelease(partition_lock);

	if (buf_id >= 0)
	{
		source->in_buffers = true;
		*found = buf_id + 1;
		return false;
	}
	if (!copied_rows)
		return false;
	if (PageIsNew(copy) || !page_verified(copy, block) || !PageIsAllVisible(copy))
		return false;
	source->pages_copied++;
	pgstat_count_buffer_read(source->rel);
	pgBufferUsage.shared_blks_read++;
	return true;
}

/*
 * Start a source reading rel's blocks below nblocks with strategy's ring, its pages copied from
 * the page cache where may_copy and the snapshot allow it; the window's memory, and its unmapping
 * on a reset, in the current memory context.
 */
static void
source_begin(RadikPageSource *source, Relation rel, Snapshot snapshot,
			 BufferAccessStrategy strategy, BlockNumber nblocks, bool populate, bool may_copy)
{
	memset(source, 0, sizeof(*source));
	source->rel = rel;
	source->strategy = strategy;
	source->last_block = InvalidBlockNumber;
	source->last_buffer = InvalidBuffer;
	source->buffer_step = 1;
	source->nblocks = nblocks;
	source->vm_buffer = InvalidBuffer;
	source->populate = populate;

	if (radik_page_cache_reads && may_copy &&
		!RelationUsesLocalBuffers(rel) && IsMVCCSnapshot(snapshot) &&
		!snapshot->takenDuringRecovery && !IsolationIsSerializable()
#if PG_VERSION_NUM >= 160000
		&& (io_direct_flags & IO_DIRECT_DATA) == 0
#endif
		)
	{
		MemoryContextCallback *unmap = palloc0(sizeof(MemoryContextCallback));

		source->window = palloc0(sizeof(RadikFileWindow));
		unmap->func = unmap_window;
		unmap->arg = source->window;
		MemoryContextRegisterResetCallback(CurrentMemoryContext, unmap);
	}
}

void
radik_page_source_begin(RadikPageSource *source, Relation rel, HeapScanDesc scan)
{
	source_begin(source, rel, scan->rs_base.rs_snapshot, scan->rs_strategy, scan->rs_nblocks,
				 scan->rs_base.rs_parallel == NULL, scan->rs_strategy != NULL);
	if (source->window != NULL)
		source->copies = palloc(2 * sizeof(PGAlignedBlock));
}

void
radik_page_source_begin_fetch(RadikPageSource *source, Relation rel, Snapshot snapshot,
							  BlockNumber nblocks, bool may_copy)
{
	source_begin(source, rel, snapshot, NULL, nblocks, false,
				 may_copy && RelationGetNumberOfBlocks(rel) > (BlockNumber) NBuffers / 4);
}

RadikPageRef
radik_page_source_read_into(RadikPageSource *source, BlockNumber block, Page copy)
{
	return radik_page_source_read_rows_into(source, block, copy, NULL, 0);
}

RadikPageRef
radik_page_source_read_rows_into(RadikPageSource *source, BlockNumber block, Page copy,
								 const OffsetNumber *offsets, int noffsets)
{
	RadikPageRef ref;
	Buffer		found = InvalidBuffer;

	ref.buffer = pin_guessed_buffer(source, block);
	if (!BufferIsValid(ref.buffer))
	{
		if (radik_page_source_may_copy(source) &&
			copy_block(source, block, copy, offsets, noffsets, &found))
		{
			ref.page = copy;
			return ref;
		}
		ref.buffer = pin_block(source, block, found);
	}
	ref.page = BufferGetPage(ref.buffer);
	return ref;
}

RadikPageRef
radik_page_source_read(RadikPageSource *source, BlockNumber block)
{
	Page		copy = NULL;

	if (source->copies != NULL)
		copy = source->copies[source->pages_copied % 2].data;
	return radik_page_source_read_into(source, block, copy);
}

void
radik_page_source_end(RadikPageSource *source)
{
	if (BufferIsValid(source->vm_buffer))
		ReleaseBuffer(source->vm_buffer);
	source->vm_buffer = InvalidBuffer;
	if (source->window != NULL)
		unmap_window(source->window);
}
