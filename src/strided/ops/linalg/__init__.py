"""Contractions: matmul and its family, einsum, pairwise distances."""
