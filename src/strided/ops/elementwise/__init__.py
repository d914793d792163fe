"""The elementwise op families: binary (arithmetic, comparisons), unary (math, special
functions, activations), shifts and the complex-number ops."""
