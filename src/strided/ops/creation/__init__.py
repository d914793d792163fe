"""Random draws and their generator."""
