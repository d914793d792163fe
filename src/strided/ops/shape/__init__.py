"""Ops that join, split, reorder, sort, search and pad: new tensors shaped from their inputs."""
