/*
 * glueball.runtime.streaming._kafkacols: read one Kafka partition with librdkafka straight into column buffers.
 *
 * confluent-kafka hands Python one Message object per record; building Arrow columns from them costs
 * more than the read itself. This module keeps the records in C: Reader.read() fills the buffers of
 * Arrow columns (key and value as binary offsets + data + validity bitmap, offset, timestamp and
 * timestamp type as fixed-width values) and returns them as bytes, which Python wraps with
 * pyarrow.Array.from_buffers without touching a record. The GIL is released while librdkafka works.
 *
 * Built when librdkafka's headers are there (Debian: librdkafka-dev); glueball.runtime.streaming.kafka falls
 * back to confluent-kafka otherwise. The library itself is not linked: load(path) opens the librdkafka
 * that confluent-kafka ships (so both clients speak the same, recent protocol versions) and takes the
 * functions below from it; the headers give only types and constants.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <librdkafka/rdkafka.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define KFN(name) __typeof__(rd_kafka_##name) *name
static struct {
    void *handle;
    KFN(conf_new); KFN(conf_set); KFN(conf_destroy); KFN(new); KFN(destroy); KFN(assign);
    KFN(topic_partition_list_new); KFN(topic_partition_list_add); KFN(topic_partition_list_destroy);
    KFN(queue_get_consumer); KFN(queue_destroy); KFN(consumer_close); KFN(consume_batch_queue);
    KFN(message_destroy); KFN(message_timestamp); KFN(err2str); KFN(version_str);
} K;

#define KLOAD(name) if ((K.name = (__typeof__(K.name))dlsym(h, "rd_kafka_" #name)) == NULL) missing = "rd_kafka_" #name

static PyObject *module_load(PyObject *Py_UNUSED(self), PyObject *args) {
    const char *path;
    const char *missing = NULL;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    if (K.handle != NULL) Py_RETURN_NONE;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        PyErr_Format(PyExc_ImportError, "cannot load librdkafka from %s: %s", path, dlerror());
        return NULL;
    }
    KLOAD(conf_new); KLOAD(conf_set); KLOAD(conf_destroy); KLOAD(new); KLOAD(destroy); KLOAD(assign);
    KLOAD(topic_partition_list_new); KLOAD(topic_partition_list_add); KLOAD(topic_partition_list_destroy);
    KLOAD(queue_get_consumer); KLOAD(queue_destroy); KLOAD(consumer_close); KLOAD(consume_batch_queue);
    KLOAD(message_destroy); KLOAD(message_timestamp); KLOAD(err2str); KLOAD(version_str);
    if (missing != NULL) {
        dlclose(h);
        PyErr_Format(PyExc_ImportError, "%s has no %s", path, missing);
        return NULL;
    }
    K.handle = h;
    Py_RETURN_NONE;
}

static int loaded(void) {
    if (K.handle == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "librdkafka is not loaded: call load(path) first");
        return 0;
    }
    return 1;
}

#define CONSUME_CHUNK 10000

typedef struct {
    char *data;
    size_t len;
    size_t cap;
} Buf;

static int buf_reserve(Buf *b, size_t extra) {
    if (b->len + extra <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra) cap *= 2;
    char *grown = realloc(b->data, cap);
    if (grown == NULL) return -1;
    b->data = grown;
    b->cap = cap;
    return 0;
}

static int buf_put(Buf *b, const void *p, size_t n) {
    if (buf_reserve(b, n) < 0) return -1;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

static void buf_free(Buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* one binary column: int32 offsets (n + 1), data, validity bitmap */
typedef struct {
    Buf offsets, data, valid;
    int32_t nulls;
} BinaryColumn;

static int binary_put(BinaryColumn *c, int64_t row, const void *p, size_t n) {
    if ((row & 7) == 0) {
        uint8_t zero = 0;
        if (buf_put(&c->valid, &zero, 1) < 0) return -1;
    }
    if (p != NULL) {
        ((uint8_t *)c->valid.data)[row >> 3] |= (uint8_t)(1u << (row & 7));
        if (buf_put(&c->data, p, n) < 0) return -1;
    } else {
        c->nulls++;
    }
    if (c->data.len > INT32_MAX) return -1;
    int32_t end = (int32_t)c->data.len;
    return buf_put(&c->offsets, &end, sizeof end);
}

static void binary_free(BinaryColumn *c) {
    buf_free(&c->offsets);
    buf_free(&c->data);
    buf_free(&c->valid);
}

typedef struct {
    PyObject_HEAD
    rd_kafka_t *rk;
    rd_kafka_queue_t *queue;
} Reader;

static void reader_close_handles(Reader *self) {
    rd_kafka_queue_t *queue = self->queue;
    rd_kafka_t *rk = self->rk;
    self->queue = NULL;
    self->rk = NULL;
    Py_BEGIN_ALLOW_THREADS
    if (queue != NULL) K.queue_destroy(queue);
    if (rk != NULL) {
        K.consumer_close(rk);
        K.destroy(rk);
    }
    Py_END_ALLOW_THREADS
}

static void reader_dealloc(Reader *self) {
    reader_close_handles(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int reader_init(Reader *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"config", "topic", "partition", "start", NULL};
    PyObject *config;
    const char *topic;
    int partition;
    long long start;
    char errstr[512];

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!siL", kwlist, &PyDict_Type, &config, &topic, &partition,
                                     &start))
        return -1;
    if (!loaded()) return -1;
    if (self->rk != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Reader is already initialised");
        return -1;
    }
    rd_kafka_conf_t *conf = K.conf_new();
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(config, &pos, &key, &value)) {
        PyObject *key_text = PyObject_Str(key);
        PyObject *value_text = PyObject_Str(value);
        if (key_text == NULL || value_text == NULL) {
            Py_XDECREF(key_text);
            Py_XDECREF(value_text);
            K.conf_destroy(conf);
            return -1;
        }
        const char *k = PyUnicode_AsUTF8(key_text), *v = PyUnicode_AsUTF8(value_text);
        rd_kafka_conf_res_t res = (k && v) ? K.conf_set(conf, k, v, errstr, sizeof errstr)
                                           : RD_KAFKA_CONF_INVALID;
        Py_DECREF(key_text);
        Py_DECREF(value_text);
        if (res != RD_KAFKA_CONF_OK) {
            K.conf_destroy(conf);
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "Kafka client setting: %s", errstr);
            return -1;
        }
    }
    rd_kafka_t *rk = K.new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
    if (rk == NULL) {  /* conf is still ours */
        K.conf_destroy(conf);
        PyErr_Format(PyExc_ValueError, "Kafka client: %s", errstr);
        return -1;
    }
    rd_kafka_topic_partition_list_t *parts = K.topic_partition_list_new(1);
    K.topic_partition_list_add(parts, topic, partition)->offset = start;
    rd_kafka_resp_err_t err = K.assign(rk, parts);
    K.topic_partition_list_destroy(parts);
    if (err) {
        K.destroy(rk);
        PyErr_Format(PyExc_RuntimeError, "Kafka assign %s-%d: %s", topic, partition, K.err2str(err));
        return -1;
    }
    self->rk = rk;
    self->queue = K.queue_get_consumer(rk);
    return 0;
}

static PyObject *bytes_of(Buf *b) {
    return PyBytes_FromStringAndSize(b->data ? b->data : "", (Py_ssize_t)b->len);
}

/*
 * read(max_records, timeout_ms) -> (rows, key_offsets, key_data, key_valid, key_nulls, value_offsets, value_data,
 *                                   value_valid, value_nulls, offsets, timestamps, timestamp_types, events)
 * Waits up to timeout_ms for the first records, then takes what is queued, up to max_records. Stops early
 * at an error or end-of-partition event; events are (code, offset, text) tuples, in order after the rows.
 */
static PyObject *reader_read(Reader *self, PyObject *args) {
    long long max_records;
    int timeout_ms;
    if (!PyArg_ParseTuple(args, "Li", &max_records, &timeout_ms)) return NULL;
    if (self->rk == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Reader is closed");
        return NULL;
    }
    if (max_records < 1) max_records = 1;

    BinaryColumn keys = {0}, values = {0};
    Buf offsets = {0}, stamps = {0}, kinds = {0};
    rd_kafka_message_t **msgs = malloc(sizeof(*msgs) * CONSUME_CHUNK);
    /* events: at most one error batch per call, copied out before the GIL is taken back */
    int n_events = 0, cap_events = 16;
    int *event_codes = malloc(sizeof(int) * cap_events);
    long long *event_offsets = malloc(sizeof(long long) * cap_events);
    char (*event_texts)[256] = malloc(256 * (size_t)cap_events);
    int64_t rows = 0;
    int failed = 0;
    int32_t zero = 0;

    if (msgs == NULL || event_codes == NULL || event_offsets == NULL || event_texts == NULL ||
        buf_put(&keys.offsets, &zero, sizeof zero) < 0 || buf_put(&values.offsets, &zero, sizeof zero) < 0) {
        failed = 1;
    }

    Py_BEGIN_ALLOW_THREADS
    int wait = timeout_ms;
    while (!failed && rows < max_records && n_events == 0) {
        long long want = max_records - rows;
        if (want > CONSUME_CHUNK) want = CONSUME_CHUNK;
        ssize_t got = K.consume_batch_queue(self->queue, wait, msgs, (size_t)want);
        if (got <= 0) break;
        for (ssize_t i = 0; i < got; i++) {
            rd_kafka_message_t *m = msgs[i];
            if (failed) {
                K.message_destroy(m);
                continue;
            }
            if (m->err) {
                if (n_events == cap_events) {  /* keep the first ones: enough to act on */
                    K.message_destroy(m);
                    continue;
                }
                event_codes[n_events] = (int)m->err;
                event_offsets[n_events] = (long long)m->offset;
                if (m->payload != NULL)
                    snprintf(event_texts[n_events], 256, "%.*s", (int)(m->len < 255 ? m->len : 255), (const char *)m->payload);
                else
                    snprintf(event_texts[n_events], 256, "%s", K.err2str(m->err));
                n_events++;
                K.message_destroy(m);
                continue;
            }
            rd_kafka_timestamp_type_t kind;
            int64_t stamp = K.message_timestamp(m, &kind);
            int64_t offset = (int64_t)m->offset;
            int32_t kind32 = (int32_t)kind;
            if (binary_put(&keys, rows, m->key, m->key_len) < 0 ||
                binary_put(&values, rows, m->payload, m->len) < 0 ||
                buf_put(&offsets, &offset, sizeof offset) < 0 || buf_put(&stamps, &stamp, sizeof stamp) < 0 ||
                buf_put(&kinds, &kind32, sizeof kind32) < 0) {
                failed = 1;
            } else {
                rows++;
            }
            K.message_destroy(m);
        }
        if (got < want) break;  /* the queue is drained */
        wait = 0;
    }
    Py_END_ALLOW_THREADS

    PyObject *result = NULL;
    if (failed) {
        PyErr_NoMemory();
    } else {
        PyObject *events = PyList_New(n_events);
        for (int i = 0; events != NULL && i < n_events; i++) {
            PyObject *event = Py_BuildValue("(iLs)", event_codes[i], event_offsets[i], event_texts[i]);
            if (event == NULL) {
                Py_CLEAR(events);
                break;
            }
            PyList_SET_ITEM(events, i, event);
        }
        if (events != NULL) {
            result = Py_BuildValue("(LNNNiNNNiNNNN)", (long long)rows, bytes_of(&keys.offsets), bytes_of(&keys.data),
                                   bytes_of(&keys.valid), keys.nulls, bytes_of(&values.offsets),
                                   bytes_of(&values.data), bytes_of(&values.valid), values.nulls, bytes_of(&offsets),
                                   bytes_of(&stamps), bytes_of(&kinds), events);
        }
    }
    binary_free(&keys);
    binary_free(&values);
    buf_free(&offsets);
    buf_free(&stamps);
    buf_free(&kinds);
    free(msgs);
    free(event_codes);
    free(event_offsets);
    free(event_texts);
    return result;
}

static PyObject *reader_seek(Reader *self, PyObject *args) {
    const char *topic;
    int partition;
    long long offset;
    if (!PyArg_ParseTuple(args, "siL", &topic, &partition, &offset)) return NULL;
    if (self->rk == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Reader is closed");
        return NULL;
    }
    rd_kafka_topic_partition_list_t *parts = K.topic_partition_list_new(1);
    K.topic_partition_list_add(parts, topic, partition)->offset = offset;
    rd_kafka_resp_err_t err;
    Py_BEGIN_ALLOW_THREADS
    err = K.assign(self->rk, parts);
    Py_END_ALLOW_THREADS
    K.topic_partition_list_destroy(parts);
    if (err) {
        PyErr_Format(PyExc_RuntimeError, "Kafka assign %s-%d: %s", topic, partition, K.err2str(err));
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *reader_close(Reader *self, PyObject *Py_UNUSED(ignored)) {
    reader_close_handles(self);
    Py_RETURN_NONE;
}

static PyMethodDef reader_methods[] = {
    {"read", (PyCFunction)reader_read, METH_VARARGS, "Records as column buffers (see the module source)."},
    {"assign", (PyCFunction)reader_seek, METH_VARARGS, "assign(topic, partition, offset): read from there on."},
    {"close", (PyCFunction)reader_close, METH_NOARGS, "Leave and free the consumer."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "glueball.runtime.streaming._kafkacols.Reader",
    .tp_basicsize = sizeof(Reader),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Reader(config, topic, partition, start): one partition's records as column buffers.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)reader_init,
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_methods = reader_methods,
};

static PyObject *module_version(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(ignored)) {
    if (!loaded()) return NULL;
    return PyUnicode_FromString(K.version_str());
}

static PyObject *module_has_property(PyObject *Py_UNUSED(self), PyObject *args) {
    const char *name, *value;
    char errstr[256];
    if (!PyArg_ParseTuple(args, "ss", &name, &value) || !loaded()) return NULL;
    rd_kafka_conf_t *conf = K.conf_new();
    rd_kafka_conf_res_t res = K.conf_set(conf, name, value, errstr, sizeof errstr);
    K.conf_destroy(conf);
    return PyBool_FromLong(res == RD_KAFKA_CONF_OK);
}

static PyMethodDef module_methods[] = {
    {"load", module_load, METH_VARARGS, "load(path): the librdkafka shared library to use (once per process)."},
    {"librdkafka_version", module_version, METH_NOARGS, "The librdkafka version this module runs with."},
    {"accepts", module_has_property, METH_VARARGS,
     "accepts(name, value): whether this librdkafka takes the client setting."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kafkacols", "Kafka partitions read into Arrow column buffers (librdkafka).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kafkacols(void) {
    if (PyType_Ready(&ReaderType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&ReaderType);
    if (PyModule_AddObject(m, "Reader", (PyObject *)&ReaderType) < 0) {
        Py_DECREF(&ReaderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
