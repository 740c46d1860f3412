"""The worker entry hands back the documents already encoded, equal to what it recognised."""

from __future__ import annotations

import gc

import pytest

from services.runtime.recognizer import EncodedRecognition, RecognitionFailed
from services.tabular_parser.recognizer import recognize_bytes, recognize_encoded
from tests.builders import spec_of, write_xlsx
from tests.tabular_parser.osv._builder import osv_sheet
from tests.tabular_parser.osv._fixtures import GENERAL_ROWS, GENERAL_TOTAL


def _workbook() -> bytes:
    sheet = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, sheet_name="ОСВ").sheet
    return write_xlsx([spec_of(sheet)])


def test_recognize_encoded_decodes_to_the_documents_of_recognize_bytes() -> None:
    data = _workbook()
    plain = recognize_bytes(data)
    encoded = recognize_encoded(data)
    assert isinstance(encoded, EncodedRecognition)
    assert encoded.decoded_documents() == plain.documents
    assert (encoded.status, encoded.group_schema) == (plain.status, plain.group_schema)
    assert encoded.document_count == 1


def test_garbage_collection_is_back_on_after_recognition_even_when_it_fails() -> None:
    assert gc.isenabled()
    recognize_encoded(_workbook())
    assert gc.isenabled()
    with pytest.raises(RecognitionFailed):
        recognize_encoded(b"%PDF-1.7 not a workbook")
    assert gc.isenabled()
