/* The record walks of the XLS and XLSB sheet passes, in C.
 *
 * Twins of `walk_xls_python` (services/excel/_xls_scan.py) and `walk_xlsb_python`
 * (services/excel/_xlsb_scan.py): same records read in the same order, same result tuple,
 * same point of stopping. The Python functions are the reference; the tests hold the two equal
 * on built workbooks and on mutated bytes (tests/excel/test_walk_kernels.py).
 *
 * Safety: every byte is read through `take`, which checks the read against the whole buffer
 * (as struct.unpack_from does, so a read may run past a short record into the next one, as the
 * Python walk's do) and returns NULL instead of reading outside it. No recursion; no memory is
 * kept between calls; the GIL is held throughout (the buffer cannot change under the walk).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const unsigned char *data;
    Py_ssize_t len;
} Buf;

/* The `n` bytes at `off`, or NULL when any of them lies outside the buffer. */
static const unsigned char *
take(const Buf *buf, Py_ssize_t off, Py_ssize_t n)
{
    if (off < 0 || n < 0 || off > buf->len || n > buf->len - off) {
        return NULL;
    }
    return buf->data + off;
}

static int
rd_u8(const Buf *buf, Py_ssize_t off, uint32_t *out)
{
    const unsigned char *p = take(buf, off, 1);
    if (p == NULL) {
        return -1;
    }
    *out = p[0];
    return 0;
}

static int
rd_u16(const Buf *buf, Py_ssize_t off, uint32_t *out)
{
    const unsigned char *p = take(buf, off, 2);
    if (p == NULL) {
        return -1;
    }
    *out = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
    return 0;
}

static uint32_t
le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static int
rd_u32(const Buf *buf, Py_ssize_t off, uint32_t *out)
{
    const unsigned char *p = take(buf, off, 4);
    if (p == NULL) {
        return -1;
    }
    *out = le32(p);
    return 0;
}

static int
rd_f64(const Buf *buf, Py_ssize_t off, double *out)
{
    const unsigned char *p = take(buf, off, 8);
    uint64_t bits;
    if (p == NULL) {
        return -1;
    }
    bits = (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
    memcpy(out, &bits, sizeof bits);
    return 0;
}

/* An RK number (MS-XLS 2.5.217): a 30-bit integer or the top of a double, maybe / 100. */
static double
rk_number(uint32_t value)
{
    double number;
    if (value & 0x02) {
        int64_t whole = (int64_t)(value >> 2);
        if (value & 0x80000000u) {
            whole -= (int64_t)1 << 30;
        }
        number = (double)whole;
    }
    else {
        uint64_t bits = (uint64_t)(value & 0xFFFFFFFCu) << 32;
        memcpy(&number, &bits, sizeof number);
    }
    return (value & 0x01) ? number / 100 : number;
}

/* A set of style indices as a bitmap over [0, limit): members outside it can never match. */
typedef struct {
    unsigned char *bits;
    Py_ssize_t size; /* indices covered */
    int nonempty;    /* the Python set's truth */
} Members;

static int
members_init(Members *m, PyObject *set, int64_t limit)
{
    PyObject *iter, *item;
    int64_t top = -1;
    m->bits = NULL;
    m->size = 0;
    if (!PyAnySet_Check(set)) {
        PyErr_SetString(PyExc_TypeError, "style indices must be a set or frozenset");
        return -1;
    }
    m->nonempty = PySet_GET_SIZE(set) > 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            if (top < 0) {
                return 0;
            }
            m->size = (Py_ssize_t)top + 1;
            m->bits = PyMem_Calloc((size_t)(m->size + 7) / 8, 1);
            if (m->bits == NULL) {
                PyErr_NoMemory();
                return -1;
            }
        }
        iter = PyObject_GetIter(set);
        if (iter == NULL) {
            return -1;
        }
        while ((item = PyIter_Next(iter)) != NULL) {
            int overflow = 0;
            long long value;
            if (!PyLong_Check(item)) {
                Py_DECREF(item);
                Py_DECREF(iter);
                PyErr_SetString(PyExc_TypeError, "style indices must be ints");
                return -1;
            }
            value = PyLong_AsLongLongAndOverflow(item, &overflow);
            Py_DECREF(item);
            if (value == -1 && PyErr_Occurred()) {
                Py_DECREF(iter);
                return -1;
            }
            if (overflow || value < 0 || value >= limit) {
                continue;
            }
            if (pass == 0) {
                if (value > top) {
                    top = value;
                }
            }
            else {
                m->bits[value >> 3] |= (unsigned char)(1u << (value & 7));
            }
        }
        Py_DECREF(iter);
        if (PyErr_Occurred()) {
            return -1;
        }
    }
    return 0;
}

static int
members_has(const Members *m, uint32_t index)
{
    return (Py_ssize_t)index < m->size && (m->bits[index >> 3] >> (index & 7)) & 1;
}

static void
members_free(Members *m)
{
    PyMem_Free(m->bits);
    m->bits = NULL;
}

/* What both walks build. */
typedef struct {
    PyObject *levels;  /* dict row -> level */
    PyObject *bold;    /* set of rows */
    PyObject *numbers; /* dict (row, col) -> float */
    int64_t last_bold; /* the row last added to `bold` (adding again changes nothing) */
} Found;

static int
found_init(Found *f)
{
    f->levels = PyDict_New();
    f->bold = PySet_New(NULL);
    f->numbers = PyDict_New();
    f->last_bold = -1;
    if (f->levels == NULL || f->bold == NULL || f->numbers == NULL) {
        Py_CLEAR(f->levels);
        Py_CLEAR(f->bold);
        Py_CLEAR(f->numbers);
        return -1;
    }
    return 0;
}

static void
found_clear(Found *f)
{
    Py_CLEAR(f->levels);
    Py_CLEAR(f->bold);
    Py_CLEAR(f->numbers);
}

static int
set_level(Found *f, int64_t row, int64_t level)
{
    PyObject *key = PyLong_FromLongLong(row), *value;
    int rc;
    if (key == NULL) {
        return -1;
    }
    value = PyLong_FromLongLong(level);
    if (value == NULL) {
        Py_DECREF(key);
        return -1;
    }
    rc = PyDict_SetItem(f->levels, key, value);
    Py_DECREF(key);
    Py_DECREF(value);
    return rc;
}

static int
add_bold(Found *f, int64_t row)
{
    PyObject *key;
    int rc;
    if (row == f->last_bold) {
        return 0;
    }
    key = PyLong_FromLongLong(row);
    if (key == NULL) {
        return -1;
    }
    rc = PySet_Add(f->bold, key);
    Py_DECREF(key);
    if (rc == 0) {
        f->last_bold = row;
    }
    return rc;
}

static int
set_number(Found *f, int64_t row, int64_t col, double number)
{
    PyObject *key = Py_BuildValue("(LL)", (long long)row, (long long)col), *value;
    int rc;
    if (key == NULL) {
        return -1;
    }
    value = PyFloat_FromDouble(number);
    if (value == NULL) {
        Py_DECREF(key);
        return -1;
    }
    rc = PyDict_SetItem(f->numbers, key, value);
    Py_DECREF(key);
    Py_DECREF(value);
    return rc;
}

static int
append_rect(PyObject *list, uint32_t top, uint32_t left, uint32_t bottom, uint32_t right)
{
    PyObject *rect = Py_BuildValue(
        "(kkkk)", (unsigned long)top, (unsigned long)left, (unsigned long)bottom,
        (unsigned long)right);
    int rc;
    if (rect == NULL) {
        return -1;
    }
    rc = PyList_Append(list, rect);
    Py_DECREF(rect);
    return rc;
}

static PyObject *
damaged(Py_ssize_t off, Py_ssize_t n, Py_ssize_t len)
{
    return PyUnicode_FromFormat(
        "reading %zd bytes at offset %zd runs past the end (%zd bytes)", n, off, len);
}

/* ---------------------------------------------------------------- XLS (BIFF8) -------- */

enum {
    BOF = 0x0809,
    EOF_ = 0x000A,
    ROW = 0x0208,
    MULRK = 0x00BD,
    MULBLANK = 0x00BE,
    NUMBER = 0x0203,
    RK = 0x027E,
    FORMULA = 0x0006,
};

static int
is_xls_cell(uint32_t code)
{
    /* NUMBER, LABELSST, RK, FORMULA, BLANK, BOOLERR, LABEL, RSTRING */
    switch (code) {
    case 0x0203: case 0x00FD: case 0x027E: case 0x0006:
    case 0x0201: case 0x0205: case 0x0204: case 0x00D6:
        return 1;
    default:
        return 0;
    }
}

/* The number a NUMBER, RK or FORMULA record holds: 1 found, 0 none, -1 unreadable. */
static int
xls_number(const Buf *buf, uint32_t code, Py_ssize_t body, double *out, Py_ssize_t *bad)
{
    uint32_t rk;
    if (code == NUMBER || code == FORMULA) {
        if (code == FORMULA) {
            const unsigned char *tail = take(buf, body + 12, 2);
            if (tail != NULL && tail[0] == 0xFF && tail[1] == 0xFF) {
                return 0; /* a result whose last two bytes are FFFF is no number */
            }
        }
        if (rd_f64(buf, body + 6, out) < 0) {
            *bad = body + 6;
            return -1;
        }
        return 1;
    }
    if (code == RK) {
        if (rd_u32(buf, body + 6, &rk) < 0) {
            *bad = body + 6;
            return -1;
        }
        *out = rk_number(rk);
        return 1;
    }
    return 0;
}

static PyObject *
walk_xls(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t offset;
    PyObject *bold_set, *trap_set, *result = NULL, *stopped = NULL;
    Members bold, traps;
    Found f;
    Buf buf;
    int64_t first_row = (int64_t)1 << 40, first_col = (int64_t)1 << 40;
    int64_t last_row = -1, last_col = -1, seen_row = -1, cells = 0, depth = 0;
    Py_ssize_t pos, end, bad_off = 0, bad_len = 0;
    int styled;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*nOO:walk_xls", &view, &offset, &bold_set, &trap_set)) {
        return NULL;
    }
    if (offset < 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "offset must not be negative");
        return NULL;
    }
    bold.bits = traps.bits = NULL;
    if (members_init(&bold, bold_set, 0x10000) < 0 ||
        members_init(&traps, trap_set, 0x10000) < 0 || found_init(&f) < 0) {
        members_free(&bold);
        members_free(&traps);
        PyBuffer_Release(&view);
        return NULL;
    }
    buf.data = view.buf;
    buf.len = view.len;
    styled = bold.nonempty || traps.nonempty;
    pos = offset;
    end = buf.len;

#define BAD(off, n)         \
    do {                    \
        bad_off = (off);    \
        bad_len = (n);      \
        goto unreadable;    \
    } while (0)

    while (pos <= end - 4) {
        uint32_t code, size, row, col, xf;
        Py_ssize_t body;
        if (rd_u16(&buf, pos, &code) < 0 || rd_u16(&buf, pos + 2, &size) < 0) {
            BAD(pos, 4);
        }
        body = pos + 4;
        pos = body + (Py_ssize_t)size;
        if (is_xls_cell(code)) {
            if (take(&buf, body, 6) == NULL) {
                BAD(body, 6);
            }
            rd_u16(&buf, body, &row);
            rd_u16(&buf, body + 2, &col);
            rd_u16(&buf, body + 4, &xf);
            cells += 1;
            if ((int64_t)row != seen_row) {
                seen_row = row;
                if (row > last_row) {
                    last_row = row;
                }
                if (row < first_row) {
                    first_row = row;
                }
            }
            if (col > last_col) {
                last_col = col;
            }
            if (col < first_col) {
                first_col = col;
            }
            if (styled) {
                if (members_has(&bold, xf) && add_bold(&f, row) < 0) {
                    goto cleanup;
                }
                if (members_has(&traps, xf)) {
                    double number;
                    Py_ssize_t at = 0;
                    int got = xls_number(&buf, code, body, &number, &at);
                    if (got < 0) {
                        BAD(at, code == RK ? 4 : 8);
                    }
                    if (got > 0 && set_number(&f, row, col, number) < 0) {
                        goto cleanup;
                    }
                }
            }
        }
        else if (code == MULRK || code == MULBLANK) {
            uint32_t last;
            int64_t count;
            if (take(&buf, body, 4) == NULL) {
                BAD(body, 4);
            }
            rd_u16(&buf, body, &row);
            rd_u16(&buf, body + 2, &col);
            if (rd_u16(&buf, body + (Py_ssize_t)size - 2, &last) < 0) {
                BAD(body + (Py_ssize_t)size - 2, 2);
            }
            count = (int64_t)last - (int64_t)col + 1;
            if (count < 0) {
                count = 0;
            }
            cells += count;
            if (row > last_row) {
                last_row = row;
            }
            if (row < first_row) {
                first_row = row;
            }
            if (last > last_col) {
                last_col = last;
            }
            if (col < first_col) {
                first_col = col;
            }
            if (code == MULRK && traps.nonempty) {
                for (int64_t index = 0; index < count; index++) {
                    Py_ssize_t at = body + 4 + 6 * (Py_ssize_t)index;
                    const unsigned char *pair = take(&buf, at, 6);
                    uint32_t rk;
                    if (pair == NULL) {
                        BAD(at, 6);
                    }
                    xf = (uint32_t)pair[0] | ((uint32_t)pair[1] << 8);
                    rk = le32(pair + 2);
                    if (members_has(&traps, xf) &&
                        set_number(&f, row, (int64_t)col + index, rk_number(rk)) < 0) {
                        goto cleanup;
                    }
                }
            }
        }
        else if (code == ROW) {
            uint32_t level;
            if (rd_u16(&buf, body, &row) < 0) {
                BAD(body, 2);
            }
            if (rd_u32(&buf, body + 12, &level) < 0) {
                BAD(body + 12, 4);
            }
            level &= 0x07;
            if (level && set_level(&f, row, level) < 0) {
                goto cleanup;
            }
        }
        else if (code == BOF) {
            depth += 1;
        }
        else if (code == EOF_) {
            depth -= 1;
            if (depth <= 0) {
                break;
            }
        }
    }
    goto done;

unreadable:
    stopped = damaged(bad_off, bad_len, buf.len);
    if (stopped == NULL) {
        goto cleanup;
    }
done:
    result = Py_BuildValue(
        "(OOO(LLLLL)O)", f.levels, f.bold, f.numbers, (long long)first_row,
        (long long)first_col, (long long)last_row, (long long)last_col, (long long)cells,
        stopped != NULL ? stopped : Py_None);
cleanup:
    Py_XDECREF(stopped);
    found_clear(&f);
    members_free(&bold);
    members_free(&traps);
    PyBuffer_Release(&view);
    return result;
}

/* --------------------------------------------------------------- XLSB (BIFF12) ------- */

enum {
    ROW_HDR = 0,
    WS_DIM = 148,
    MERGE_CELL = 176,
    CELL_RK = 2,
    CELL_REAL = 5,
    FMLA_NUM = 9,
};

static int
is_xlsb_cell(uint32_t kind)
{
    return (kind >= 1 && kind <= 13) || kind == 62; /* BrtCellBlank ... BrtFmlaError, RString */
}

/* The record header at `pos`: two varints (MS-XLSB 2.1.4), as `_header` reads them. */
static int
xlsb_header(const Buf *buf, Py_ssize_t pos, uint32_t *kind, Py_ssize_t *body, uint32_t *size,
            Py_ssize_t *bad)
{
    uint32_t byte, value = 0;
    if (rd_u8(buf, pos, kind) < 0) {
        *bad = pos;
        return -1;
    }
    pos += 1;
    if (*kind & 0x80) {
        if (rd_u8(buf, pos, &byte) < 0) {
            *bad = pos;
            return -1;
        }
        *kind = (*kind & 0x7F) | ((byte & 0x7F) << 7);
        pos += 1;
    }
    for (int shift = 0; shift <= 21; shift += 7) {
        if (rd_u8(buf, pos, &byte) < 0) {
            *bad = pos;
            return -1;
        }
        pos += 1;
        value |= (byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            break;
        }
    }
    *body = pos;
    *size = value;
    return 0;
}

static PyObject *
walk_xlsb(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *bold_set, *trap_set, *merged = NULL, *dims = NULL, *result = NULL;
    PyObject *stopped = NULL;
    Members bold, traps;
    Found f;
    Buf buf;
    int64_t row = 0, extent_row = -1, cells = 0;
    int64_t first_row = (int64_t)1 << 40, first_col = (int64_t)1 << 40;
    int64_t last_row = -1, last_col = -1;
    Py_ssize_t pos = 0, end, bad_off = 0, bad_len = 0;
    int styled;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*OO:walk_xlsb", &view, &bold_set, &trap_set)) {
        return NULL;
    }
    bold.bits = traps.bits = NULL;
    f.levels = f.bold = f.numbers = NULL;
    if (members_init(&bold, bold_set, 0x1000000) < 0 ||
        members_init(&traps, trap_set, 0x1000000) < 0 || found_init(&f) < 0) {
        goto cleanup;
    }
    merged = PyList_New(0);
    dims = PyList_New(0);
    if (merged == NULL || dims == NULL) {
        goto cleanup;
    }
    buf.data = view.buf;
    buf.len = view.len;
    styled = bold.nonempty || traps.nonempty;
    end = buf.len;

    while (pos < end) {
        uint32_t kind, size, col, style;
        Py_ssize_t body;
        const unsigned char *head = take(&buf, pos, 2);
        if (head == NULL) {
            BAD(pos + 1, 1);
        }
        kind = head[0];
        size = head[1];
        if (kind < 0x80 && size < 0x80) { /* one-byte type and size: nearly every record */
            body = pos + 2;
        }
        else if (xlsb_header(&buf, pos, &kind, &body, &size, &bad_off) < 0) {
            BAD(bad_off, 1);
        }
        pos = body + (Py_ssize_t)size;
        if (pos > end) {
            stopped = Py_BuildValue("(sN)", "overrun",
                                    PyUnicode_FromFormat("record %u overruns the part", kind));
            if (stopped == NULL) {
                goto cleanup;
            }
            goto done;
        }
        if (is_xlsb_cell(kind) && size >= 4) {
            if (size >= 8) {
                const unsigned char *cell = take(&buf, body, 8);
                if (cell == NULL) {
                    BAD(body, 8);
                }
                col = le32(cell);
                style = le32(cell + 4);
                if (styled) {
                    style &= 0xFFFFFF;
                    if (members_has(&bold, style) && add_bold(&f, row) < 0) {
                        goto cleanup;
                    }
                    if (members_has(&traps, style)) {
                        double number = 0;
                        int got = 0;
                        if (kind == CELL_RK && size >= 12) {
                            uint32_t rk;
                            if (rd_u32(&buf, body + 8, &rk) < 0) {
                                BAD(body + 8, 4);
                            }
                            number = rk_number(rk);
                            got = 1;
                        }
                        else if ((kind == CELL_REAL || kind == FMLA_NUM) && size >= 16) {
                            if (rd_f64(&buf, body + 8, &number) < 0) {
                                BAD(body + 8, 8);
                            }
                            got = 1;
                        }
                        if (got && set_number(&f, row, col, number) < 0) {
                            goto cleanup;
                        }
                    }
                }
            }
            else if (rd_u32(&buf, body, &col) < 0) {
                BAD(body, 4);
            }
            cells += 1;
            if (col > last_col) {
                last_col = col;
            }
            if (col < first_col) {
                first_col = col;
            }
            if (row != extent_row) {
                extent_row = row;
                if (row > last_row) {
                    last_row = row;
                }
                if (row < first_row) {
                    first_row = row;
                }
            }
        }
        else if (kind == ROW_HDR) {
            uint32_t value, level;
            if (rd_u32(&buf, body, &value) < 0) {
                BAD(body, 4);
            }
            row = value;
            if (rd_u16(&buf, body + 10, &level) < 0) {
                BAD(body + 10, 2);
            }
            level = (level >> 8) & 0x07;
            if (level && set_level(&f, row, level) < 0) {
                goto cleanup;
            }
        }
        else if (kind == WS_DIM || kind == MERGE_CELL) {
            const unsigned char *rfx = take(&buf, body, 16);
            if (rfx == NULL) {
                BAD(body, 16);
            }
            /* RfX: first row, last row, first column, last column */
            if (append_rect(kind == WS_DIM ? dims : merged, le32(rfx), le32(rfx + 8),
                            le32(rfx + 4), le32(rfx + 12)) < 0) {
                goto cleanup;
            }
        }
    }
    goto done;

unreadable:
    stopped = Py_BuildValue("(sN)", "damaged", damaged(bad_off, bad_len, buf.len));
    if (stopped == NULL) {
        goto cleanup;
    }
done:
    result = Py_BuildValue(
        "(OOOOO(LLLLL)O)", f.levels, f.bold, f.numbers, merged, dims, (long long)first_row,
        (long long)first_col, (long long)last_row, (long long)last_col, (long long)cells,
        stopped != NULL ? stopped : Py_None);
cleanup:
    Py_XDECREF(stopped);
    Py_XDECREF(merged);
    Py_XDECREF(dims);
    found_clear(&f);
    members_free(&bold);
    members_free(&traps);
    PyBuffer_Release(&view);
    return result;
}

#undef BAD

static PyMethodDef methods[] = {
    {"walk_xls", walk_xls, METH_VARARGS,
     "walk_xls(stream, offset, bold_xfs, traps) -> the walk of walk_xls_python"},
    {"walk_xlsb", walk_xlsb, METH_VARARGS,
     "walk_xlsb(data, bold_xfs, traps) -> the walk of walk_xlsb_python"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_walk",
    "The record walks of the XLS and XLSB sheet passes (C twins of the Python reference).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__walk(void)
{
    return PyModule_Create(&module);
}
