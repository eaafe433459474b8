"""Scalars, keys and numbers as kubectl's decoders read them: go-yaml has no base-60 numbers,
sigs.k8s.io/yaml turns number and boolean keys into strings, Go refuses a JSON number beyond a
float64, and a directory's empty files are passed over."""

from __future__ import annotations

import pytest

from kwhatif.api import parse
from kwhatif.config.reader import read_strict_document
from kwhatif.errors import FieldError, InputError
from kwhatif.gocompat import format_float32_g
from kwhatif.load.files import parse_text
from kwhatif.load.manifests import expand_filenames

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"


def one(text: str, source: str = "f.yaml") -> dict:
    docs = list(parse_text(text, source))
    assert len(docs) == 1
    return docs[0].body


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("1:30", "1:30"),  # PyYAML's YAML 1.1 reads 90
        ("1:00:00", "1:00:00"),
        ("-1:30", "-1:30"),
        ("1:30.5", "1:30.5"),
        ("90", 90),
        ("0x1F", 31),
        ("017", 15),
        ("-1_000", -1000),
        ("1.5", 1.5),
        (".inf", float("inf")),
    ],
)
def test_plain_scalars_resolve_as_go_yaml_resolves_them(scalar, value):
    assert one(CM + f"data: {{}}\nx: {scalar}\n")["x"] == value
    assert read_strict_document(f"x: {scalar}\n", "test").body["x"] == value


def test_a_base60_looking_quantity_is_refused_not_read_as_a_number():
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
        "    resources:\n      requests: {cpu: 100m, memory: 1:00:00}\n"
    )
    with pytest.raises(FieldError) as e:
        parse.pod(one(text))
    assert e.value.field == "spec.containers[0].resources.requests[memory]"
    assert 'Invalid value: "1:00:00": quantities must match the regular expression' in str(e.value)


@pytest.mark.parametrize(
    ("key", "expected"),
    [("5", "5"), ("true", "true"), ("no", "false"), ("1.5", "1.5"), ("1e+06", "1e+06"), ("0x10", "16")],
)
def test_number_and_boolean_keys_become_strings_as_sigs_yaml_writes_them(key, expected):
    body = one(CM + f"data: {{{key}: v}}\n")
    assert body["data"] == {expected: "v"}


def test_a_label_with_a_number_key_is_a_label_with_that_string():
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {5: x}\nspec:\n  containers:\n  - {name: c, image: x}\n"
    assert dict(parse.pod(one(text)).labels) == {"5": "x"}


def test_two_keys_that_become_the_same_string_are_refused():
    with pytest.raises(InputError) as e:
        one(CM + 'data: {"1": a, 1: b}\n')
    assert str(e.value) == 'f.yaml: invalid YAML at line 4 column 16: mapping key "1" already defined, as a string'


def test_a_null_key_is_refused_with_its_line():
    with pytest.raises(InputError) as e:
        one(CM + "data: {null: a}\n")
    assert str(e.value) == "f.yaml: invalid YAML at line 4 column 8: a mapping key is not a string, number or boolean"


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1.5, "1.5"),
        (100000.0, "100000"),
        (1e6, "1e+06"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (3.14159265358979, "3.1415927"),
        (16777217.0, "1.6777216e+07"),
        (-0.0, "-0"),
        (1e40, "+Inf"),
        (float("nan"), "NaN"),
    ],
)
def test_float32_formatting_is_strconvs(x, text):
    assert format_float32_g(x) == text


JSON = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},\n "x": %s}'


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e400", "number 1e400 is out of the range of a float64"),
        ("-1e400", "number -1e400 is out of the range of a float64"),
        ("1" + "0" * 5000, "a number in this value is out of the range of a float64"),
    ],
)
def test_a_json_number_go_cannot_hold_is_refused(value, message):
    with pytest.raises(InputError) as e:
        list(parse_text(JSON % value, "f.json"))
    assert str(e.value) == f"f.json: invalid JSON at line 2 column 7: {message}"


def test_nan_after_the_first_object_is_a_json_syntax_error():
    # the first object falls back to YAML, as apimachinery's decoder does (NaN is a string there)
    assert one(JSON % "NaN", "f.json")["x"] == "NaN"
    with pytest.raises(InputError) as e:
        list(parse_text(JSON % "1" + "\n" + JSON % "NaN", "f.json"))
    assert str(e.value) == "f.json: invalid JSON at line 4 column 7: NaN is not a JSON value"


def test_a_yaml_integer_too_long_for_python_stays_its_text():
    body = one(CM + "data: {}\nx: 1" + "0" * 5000 + "\n")
    assert body["x"] == "1" + "0" * 5000


def test_a_directory_passes_over_its_empty_files(tmp_path):
    (tmp_path / "a.yaml").write_text(CM)
    (tmp_path / "b.yml").write_text("")
    (tmp_path / "c.yaml").write_text("# nothing here\n---\n--- # the second\n...\n")
    assert expand_filenames([str(tmp_path)], recursive=False) == [str(tmp_path / "a.yaml")]
    # a file named on its own is read as it is
    assert expand_filenames([str(tmp_path / "b.yml")], recursive=False) == [str(tmp_path / "b.yml")]


def test_a_directory_of_empty_files_is_refused(tmp_path):
    (tmp_path / "b.yml").write_text("\n")
    with pytest.raises(InputError) as e:
        expand_filenames([str(tmp_path)], recursive=False)
    assert str(e.value) == f"{tmp_path}: no Kubernetes objects: every file of the directory is empty"
