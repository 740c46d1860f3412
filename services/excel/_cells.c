/* The cell primitives that a large sheet calls for nearly every cell or row, in C.
 *
 * Twins of Python functions that stay the reference (the tests hold each pair equal on
 * generated and edge-case values, tests/excel/test_cell_kernels.py):
 *   squash          services.excel.text.squash_python        " ".join(text.split())
 *   format_kopecks  services.excel.values.format_kopecks_python
 *   money_strings   services.excel.values.money_strings_python
 *   span_kopecks    services.excel.values.span_kopecks_python
 *   column_texts    services.excel.text.column_texts_python
 *
 * They read Python objects only (no raw bytes): a list of cells, a tuple of spans, a str, an
 * int. Where a value is not one of the plain cases decided here, the function hands it back to
 * the Python rule instead of deciding (span_kopecks and column_texts return None, for any cells
 * that are not a list or spans that are not tuples of ints too; squash and format_kopecks call
 * the same string and integer operations the Python code does).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define EXACT_FLOAT 1e13 /* below it, round(x * 100) / 100 == x means x is exact kopecks */

static PyObject *space;        /* " " */
static PyObject *max_kopecks;  /* 10 ** 20 */
static PyObject *min_kopecks;  /* -10 ** 20 */
static PyObject *hundred;      /* 100 */
static PyObject *zero;         /* 0 */

/* squash(text) -> " ".join(text.split()); the same object when it is already squashed. */
static PyObject *
squash(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "squash() expects a str");
        return NULL;
    }
    if (PyUnicode_CheckExact(text)) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        int clean = 1;
        int after_space = 1; /* a space first is a leading space */
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, i);
            if (Py_UNICODE_ISSPACE(ch)) {
                if (ch != ' ' || after_space) {
                    clean = 0;
                    break;
                }
                after_space = 1;
            }
            else {
                after_space = 0;
            }
        }
        if (clean && (n == 0 || !after_space)) { /* no trailing space either */
            Py_INCREF(text);
            return text;
        }
    }
    PyObject *words = PyUnicode_Split(text, NULL, -1);
    if (words == NULL) {
        return NULL;
    }
    PyObject *joined = PyUnicode_Join(space, words);
    Py_DECREF(words);
    return joined;
}

/* sign + roubles + ("." + two digits if the kopecks part is not 0) for |kopecks| < 2**63:
 * the digits written from the end of a small buffer, then copied into an ASCII str. */
static PyObject *
format_small(long long kopecks)
{
    char buf[32];
    char *end = buf + sizeof buf;
    char *at = end;
    unsigned long long magnitude =
        kopecks < 0 ? (unsigned long long)(-(kopecks + 1)) + 1ULL : (unsigned long long)kopecks;
    unsigned int rest = (unsigned int)(magnitude % 100ULL);
    unsigned long long roubles = magnitude / 100ULL;
    if (rest) {
        *--at = (char)('0' + rest % 10);
        *--at = (char)('0' + rest / 10);
        *--at = '.';
    }
    do {
        *--at = (char)('0' + roubles % 10);
        roubles /= 10;
    } while (roubles);
    if (kopecks < 0) {
        *--at = '-';
    }
    Py_ssize_t length = end - at;
    PyObject *text = PyUnicode_New(length, 127);
    if (text == NULL) {
        return NULL;
    }
    memcpy(PyUnicode_1BYTE_DATA(text), at, (size_t)length);
    return text;
}

/* The same for a larger int, through Python's own int operations (rare: over 9.2e16 roubles). */
static PyObject *
format_large(PyObject *kopecks)
{
    int above = PyObject_RichCompareBool(kopecks, max_kopecks, Py_GE);
    int below = above < 0 ? -1 : PyObject_RichCompareBool(kopecks, min_kopecks, Py_LE);
    int negative = below < 0 ? -1 : PyObject_RichCompareBool(kopecks, zero, Py_LT);
    if (negative < 0) {
        return NULL;
    }
    if (above || below) {
        PyErr_Format(PyExc_ValueError, "amount out of range: %S kopecks", kopecks);
        return NULL;
    }
    PyObject *magnitude = PyNumber_Absolute(kopecks);
    if (magnitude == NULL) {
        return NULL;
    }
    PyObject *pair = PyNumber_Divmod(magnitude, hundred);
    Py_DECREF(magnitude);
    if (pair == NULL) {
        return NULL;
    }
    long rest = PyLong_AsLong(PyTuple_GET_ITEM(pair, 1));
    PyObject *roubles = PyObject_Str(PyTuple_GET_ITEM(pair, 0));
    Py_DECREF(pair);
    if (roubles == NULL || (rest == -1 && PyErr_Occurred())) {
        Py_XDECREF(roubles);
        return NULL;
    }
    char cents[8];
    snprintf(cents, sizeof cents, "%02ld", rest);
    PyObject *text = rest ? PyUnicode_FromFormat("%s%U.%s", negative ? "-" : "", roubles, cents)
                          : PyUnicode_FromFormat("%s%U", negative ? "-" : "", roubles);
    Py_DECREF(roubles);
    return text;
}

/* The squashed text of a text cell (NULL on error), or None for an empty one. */
static PyObject *
text_or_none(PyObject *module, PyObject *value)
{
    PyObject *text = squash(module, value);
    if (text != NULL && PyUnicode_GET_LENGTH(text) == 0) {
        Py_DECREF(text);
        Py_RETURN_NONE;
    }
    return text;
}

/* column_texts(cells, columns) -> {header: squashed text or None} for (index, header) in
 * columns, or None when some column holds neither text nor nothing (see column_texts_python). */
static PyObject *
column_texts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "column_texts() takes cells and columns");
        return NULL;
    }
    if (!PyList_Check(args[0]) || !PyTuple_Check(args[1])) { /* not the plain case */
        Py_RETURN_NONE;
    }
    PyObject *cells = args[0];
    PyObject *columns = args[1];
    Py_ssize_t width = PyList_GET_SIZE(cells);
    PyObject *texts = PyDict_New();
    if (texts == NULL) {
        return NULL;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(columns); k++) {
        PyObject *column = PyTuple_GET_ITEM(columns, k);
        if (!PyTuple_Check(column) || PyTuple_GET_SIZE(column) != 2 ||
            !PyLong_CheckExact(PyTuple_GET_ITEM(column, 0))) {
            Py_DECREF(texts);
            Py_RETURN_NONE;
        }
        Py_ssize_t index = PyLong_AsSsize_t(PyTuple_GET_ITEM(column, 0));
        if (index == -1 && PyErr_Occurred()) {
            Py_DECREF(texts);
            return NULL;
        }
        PyObject *value = 0 <= index && index < width ? PyList_GET_ITEM(cells, index) : Py_None;
        PyObject *text;
        if (value == Py_None) {
            Py_INCREF(Py_None);
            text = Py_None;
        }
        else if (PyUnicode_CheckExact(value)) {
            text = text_or_none(module, value);
            if (text == NULL) {
                Py_DECREF(texts);
                return NULL;
            }
        }
        else {
            Py_DECREF(texts);
            Py_RETURN_NONE;
        }
        int failed = PyDict_SetItem(texts, PyTuple_GET_ITEM(column, 1), text);
        Py_DECREF(text);
        if (failed) {
            Py_DECREF(texts);
            return NULL;
        }
    }
    return texts;
}

/* format_kopecks(kopecks) -> "1234" when integral, "1234.50" otherwise, "-0.05"; ValueError
 * beyond 10**20 kopecks in magnitude. */
static PyObject *
format_kopecks(PyObject *module, PyObject *kopecks)
{
    if (!PyLong_Check(kopecks)) {
        PyErr_SetString(PyExc_TypeError, "format_kopecks() expects an int");
        return NULL;
    }
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(kopecks, &overflow);
    if (value == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (overflow) {
        return format_large(kopecks);
    }
    return format_small(value);
}

/* money_strings(values) -> [format_kopecks(v) or None for each v], None kept. */
static PyObject *
money_strings(PyObject *module, PyObject *values)
{
    if (!PyList_Check(values)) {
        PyErr_SetString(PyExc_TypeError, "money_strings() expects a list");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(values);
    PyObject *texts = PyList_New(count);
    if (texts == NULL) {
        return NULL;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *value = PyList_GET_ITEM(values, k);
        PyObject *text;
        if (value == Py_None) {
            Py_INCREF(Py_None);
            text = Py_None;
        }
        else {
            text = format_kopecks(module, value);
            if (text == NULL) {
                Py_DECREF(texts);
                return NULL;
            }
        }
        PyList_SET_ITEM(texts, k, text);
    }
    return texts;
}

/* Python's round(x) for a float: half-way cases to even. */
static double
round_half_even(double x)
{
    double rounded = round(x);
    if (fabs(x - rounded) == 0.5) {
        rounded = 2.0 * round(x / 2.0);
    }
    return rounded;
}

/* Is `value` an empty cell as the fast path sees it: None or the exact empty str. */
static int
plain_empty_cell(PyObject *value)
{
    return value == Py_None || (PyUnicode_CheckExact(value) && PyUnicode_GET_LENGTH(value) == 0);
}

/* span_kopecks(cells, spans, plain_empty) -> the kopecks of each span, or None when some span
 * is not decided at a glance (see span_kopecks_python). */
static PyObject *
span_kopecks(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "span_kopecks() takes cells, spans, plain_empty");
        return NULL;
    }
    PyObject *cells = args[0];
    PyObject *spans = args[1];
    if (!PyList_Check(cells) || !PyTuple_Check(spans)) { /* not the plain case: the rule's */
        Py_RETURN_NONE;
    }
    int plain_empty = PyObject_IsTrue(args[2]);
    if (plain_empty < 0) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(spans);
    PyObject *values = PyList_New(count);
    if (values == NULL) {
        return NULL;
    }
    Py_ssize_t width = PyList_GET_SIZE(cells);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *span = PyTuple_GET_ITEM(spans, k);
        if (!PyTuple_Check(span) || PyTuple_GET_SIZE(span) != 2 ||
            !PyLong_CheckExact(PyTuple_GET_ITEM(span, 0)) ||
            !PyLong_CheckExact(PyTuple_GET_ITEM(span, 1))) {
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
        Py_ssize_t start = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 0));
        Py_ssize_t end = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 1));
        if ((start == -1 || end == -1) && PyErr_Occurred()) {
            Py_DECREF(values);
            return NULL;
        }
        if (start < 0 || end < 0) { /* Python would index from the end: its rule decides */
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
        PyObject *value = start < width ? PyList_GET_ITEM(cells, start) : Py_None;
        if (PyFloat_CheckExact(value)) {
            double x = PyFloat_AS_DOUBLE(value);
            if (-EXACT_FLOAT < x && x < EXACT_FLOAT) {
                double kopecks = round_half_even(x * 100.0);
                if (kopecks / 100.0 == x) {
                    PyObject *number = PyLong_FromDouble(kopecks);
                    if (number == NULL) {
                        Py_DECREF(values);
                        return NULL;
                    }
                    PyList_SET_ITEM(values, k, number);
                    continue;
                }
            }
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
        if (plain_empty_cell(value) && plain_empty &&
            (end == start || start + 1 >= width ||
             (end == start + 1 && plain_empty_cell(PyList_GET_ITEM(cells, end))))) {
            Py_INCREF(Py_None);
            PyList_SET_ITEM(values, k, Py_None);
            continue;
        }
        Py_DECREF(values);
        Py_RETURN_NONE;
    }
    return values;
}

static PyMethodDef methods[] = {
    {"squash", squash, METH_O, "squash(text) -> \" \".join(text.split())"},
    {"format_kopecks", format_kopecks, METH_O, "format_kopecks(kopecks) -> the money string"},
    {"money_strings", money_strings, METH_O, "money_strings(values) -> the money strings, None kept"},
    {"span_kopecks", (PyCFunction)(void (*)(void))span_kopecks, METH_FASTCALL,
     "span_kopecks(cells, spans, plain_empty) -> kopecks of each span, or None"},
    {"column_texts", (PyCFunction)(void (*)(void))column_texts, METH_FASTCALL,
     "column_texts(cells, columns) -> {header: text or None}, or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cells",
    "Cell primitives of large sheets (C twins of the Python reference).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__cells(void)
{
    space = PyUnicode_InternFromString(" ");
    max_kopecks = PyLong_FromString("100000000000000000000", NULL, 10);
    min_kopecks = PyLong_FromString("-100000000000000000000", NULL, 10);
    hundred = PyLong_FromLong(100);
    zero = PyLong_FromLong(0);
    if (space == NULL || max_kopecks == NULL || min_kopecks == NULL || hundred == NULL ||
        zero == NULL) {
        return NULL;
    }
    return PyModule_Create(&module);
}
