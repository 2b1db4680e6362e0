from kpt_fn.admission import cel
from kpt_fn.admission.cel import environment, parser


def test_the_libraries_of_base_go_and_no_others():
    functions = environment.functions()
    for name in ("matches", "find", "findAll", "indexOf", "lowerAscii", "quantity", "semver", "sets.contains",
                 "lists.range", "duration", "optional.of", "isSorted", "format"):
        assert name in functions, name
    # cel-go's math and encoders are not in the API server's environment at 1.36
    for name in ("math.greatest", "base64.encode", "strings.reverse", "reverse_string"):
        assert name not in functions


def test_merged_functions_dispatch_on_the_receiver():
    program = cel.compile("'abcb'.lastIndexOf('b') == 3 && [1, 2, 1].lastIndexOf(1) == 2", {})
    assert program.evaluate({}) is True


def test_literal_validators():
    for text, message in [("'a'.matches('(')", "invalid matches argument"),
                          ("duration('1x') > duration('1s')", "invalid duration argument"),
                          ("timestamp('yesterday') > timestamp(0)", "invalid timestamp argument")]:
        tree, positions = parser.parse(text)
        assert [m for _, m in environment.validate_literals(tree, positions)] == [message]


def test_object_types():
    assert environment.object_types()["kubernetes.AdmissionRequest"]["operation"] == "string"
