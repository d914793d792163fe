"""Indexing ops: advanced indexing, gather/scatter, index_* ops and masks."""
