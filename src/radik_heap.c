/*
 * radik_heap.c
 *	  Reading a column straight from a heap tuple (radik_heap.h): where it lies, from which
 *	  column its offset is walked, or whether it ends the row.
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "utils/rel.h"

#include "radik_heap.h"

/* Prepare to read column attnum of rel straight from its tuples. */
void
radik_column_reader_init(RadikColumnReader *column, Relation rel, AttrNumber attnum)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Form_pg_attribute target = TupleDescAttr(desc, attnum - 1);
	int32		offset = 0;

	column->attnum = attnum;
	column->desc = desc;
	column->byval = target->attbyval;
	column->len = target->attlen;

	/*
	 * As heap_deform_tuple lays columns out: fixed-width ones at aligned, known offsets, up to
	 * the first variable-width one, from which the offsets depend on the row.
	 */
	column->fixed_offset = -1;
	column->walk_first = -1;
	column->walk_offset = 0;
	column->at_row_end = attnum == desc->natts && target->attlen > 0;
	for (int i = 0; i < attnum; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen <= 0)
		{
			column->walk_first = i;
			column->walk_offset = offset;
			return;
		}
		offset = att_align_nominal(offset, att->attalign);
		if (i < attnum - 1)
			offset += att->attlen;
	}
	column->fixed_offset = offset;
}
