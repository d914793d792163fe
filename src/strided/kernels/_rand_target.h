/* The random kernels' target buffer (kernels/_randkernel.c, kernels/_randdist.c): shared so the
 * two modules accept and refuse exactly the same buffers. */
#ifndef STRIDED_RAND_TARGET_H
#define STRIDED_RAND_TARGET_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

/* out's element kind, 'f' or 'd' (an aligned, writable, C-contiguous float32/float64 buffer,
 * held in ``view``: the caller releases it), or 0 (any other buffer, read-only memory included:
 * nothing held, no error set; the caller draws nothing and its Python path says why). */
static int float_target(PyObject *obj, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int kind = 0;
    if (strcmp(f, "f") == 0 && view->itemsize == 4) kind = 'f';
    else if (strcmp(f, "d") == 0 && view->itemsize == 8) kind = 'd';
    if (kind && ((uintptr_t)view->buf) % (uintptr_t)view->itemsize != 0) kind = 0;
    if (!kind) PyBuffer_Release(view);
    return kind;
}

#endif
