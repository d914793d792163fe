"""The ops' plumbing, apart from the op families: operand reading, out=, promotion, the
reduction arguments, index helpers, memos and result types."""
