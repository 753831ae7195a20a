"""Tests of the parser: text to AST shapes, positions, literals, includes and errors.

Most tests compare a compact S-expression rendering of the AST (`sexp`) with
the expected shape, so that one line states one fact about the grammar.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import msgspec
import pytest

from engine.errors import CompileError
from engine.lang import ast
from engine.lang.parser import grammar, parse_file, parse_text

LANGUAGE_SPEC = Path("/work/shared/LANGUAGE.md")
_NOT_SHOWN = {"file", "line", "col", "decl", "target"}  # and `type` of expressions


def sexp(value: object) -> str:
    """A compact rendering of AST values: expressions as `(op a b)`, other nodes generically."""
    if isinstance(value, ast.IntLit | ast.FloatLit):
        return repr(value.value)
    if isinstance(value, ast.StringLit):
        return '"' + value.value.replace("\n", "\\n") + '"'
    if isinstance(value, ast.BoolLit):
        return "true" if value.value else "false"
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.BinOp):
        return f"({value.op} {sexp(value.left)} {sexp(value.right)})"
    if isinstance(value, ast.UnaryOp):
        return f"({value.op} {sexp(value.operand)})"
    if isinstance(value, ast.Index):
        return f"{sexp(value.base)}[{sexp(value.key)}]"
    if isinstance(value, ast.Field):
        return f"{sexp(value.base)}.{value.name}"
    if isinstance(value, ast.TypeRef):
        return value.name + "".join(f"[{d or ''}]" for d in value.dims)
    if isinstance(value, ast.Node):
        shown = [
            f"{f.name}={sexp(getattr(value, f.name))}"
            for f in _shown_fields(value)
            if getattr(value, f.name) != _default(f)
        ]
        return f"({type(value).__name__}{''.join(' ' + s for s in shown)})"
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + " ".join(sexp(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + " ".join(f"{k}={sexp(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _shown_fields(node: ast.Node) -> list[msgspec.structs.FieldInfo]:
    hidden = _NOT_SHOWN | ({"type"} if isinstance(node, ast.Expr) else set())
    return [f for f in msgspec.structs.fields(node) if f.name not in hidden]


def _default(f: msgspec.structs.FieldInfo) -> object:
    if f.default is not msgspec.NODEFAULT:
        return f.default
    if f.default_factory is not msgspec.NODEFAULT:
        return f.default_factory()
    return msgspec.NODEFAULT


def parse(text: str) -> ast.Module:
    return parse_text(text, "t.swift")


def expr(text: str) -> str:
    """Shape of expression `text`, parsed as the value of an assignment."""
    (stmt,) = parse(f"x = {text};").items
    assert isinstance(stmt, ast.Assign)
    return sexp(stmt.values[0])


def item(text: str) -> str:
    (only,) = parse(text).items
    return sexp(only)


def error(text: str, **kwargs: object) -> CompileError:
    with pytest.raises(CompileError) as caught:
        parse_text(text, "t.swift", **kwargs)
    return caught.value


def walk(node: object):
    """Every AST node reachable from `node`."""
    if isinstance(node, ast.Node):
        yield node
        for f in _shown_fields(node):
            yield from walk(getattr(node, f.name))
    elif isinstance(node, list | tuple):
        for v in node:
            yield from walk(v)
    elif isinstance(node, dict):
        for v in node.values():
            yield from walk(v)


# ---------------------------------------------------------------- expressions


@pytest.mark.parametrize(
    "source, shape",
    [
        ("-2**2", "(** (- 2) 2)"),
        ("2**3**2", "(** (** 2 3) 2)"),
        ("a - b - c", "(- (- a b) c)"),
        ("a / b * c %/ d %% e", "(%% (%/ (* (/ a b) c) d) e)"),
        ("a + b * c", "(+ a (* b c))"),
        ("(a + b) * c", "(* (+ a b) c)"),
        ("a || b && c", "(|| a (&& b c))"),
        ("a && b || c", "(|| (&& a b) c)"),
        ("a == b < c", "(== a (< b c))"),
        ("a != b && c >= d", "(&& (!= a b) (>= c d))"),
        ("a <= b + c > d", "(> (<= a (+ b c)) d)"),
        ("!a && !b", "(&& (! a) (! b))"),
        ("- -a", "(- (- a))"),
        ("-a[1]", "(- a[1])"),
        ("2 * -x ** 2", "(* 2 (** (- x) 2))"),
        ("a ** -b", "(** a (- b))"),
        ("A[i][j]", "A[i][j]"),
        ("p.f.g", "p.f.g"),
        ("A[i].f[k]", "A[i].f[k]"),
        ("f(x).y", "(Call func='f' args=[x]).y"),
        ('fmt % (a, b)', "(% fmt (TupleExpr items=[a b]))"),
        ('fmt % a', "(% fmt a)"),
        ('fmt % (a)', "(% fmt a)"),
        ('"n=" + 3', '(+ "n=" 3)'),
        ("a % b * c", "(* (% a b) c)"),
        ("((a))", "a"),
    ],
)
def test_precedence_and_associativity(source: str, shape: str) -> None:
    assert expr(source) == shape


@pytest.mark.parametrize(
    "source, shape",
    [
        ("[1, 2, 3]", "(ArrayLit items=[1 2 3])"),
        ("[]", "(ArrayLit items=[])"),
        ("[[1], []]", "(ArrayLit items=[(ArrayLit items=[1]) (ArrayLit items=[])])"),
        ("[a:b]", "(RangeLit start=a end=b)"),
        ("[1:10:4]", "(RangeLit start=1 end=10 step=4)"),
        ("[0.5:2.0]", "(RangeLit start=0.5 end=2.0)"),
        ('{"a": 1, "b": 2}', '(DictLit items=[["a" 1] ["b" 2]])'),
        ("{}", "(DictLit items=[])"),
        ("{1: [1:2]}", "(DictLit items=[[1 (RangeLit start=1 end=2)]])"),
        ("f()", "(Call func='f')"),
        ("f(1, a + b)", "(Call func='f' args=[1 (+ a b)])"),
        ("f(1, n=2, base=3)", "(Call func='f' args=[1] kwargs=[(Keyword name='n' value=2) (Keyword name='base' value=3)])"),
        ("f(a == b)", "(Call func='f' args=[(== a b)])"),
        ("P(1, \"x\")", "(Call func='P' args=[1 \"x\"])"),
        ("@prio=3 f(i)", "(Call func='f' args=[i] prio=3)"),
        ("@prio=i*2 @location=L f(i)", "(Call func='f' args=[i] prio=(* i 2) location=L)"),
        ("@location=locationFromRank(r) f()", "(Call func='f' location=(Call func='locationFromRank' args=[r]))"),
        ("@soft @hint=2 f()", "(Call func='f' annotations={soft=None hint=2})"),
        ("1 + @prio=1 f()", "(+ 1 (Call func='f' prio=1))"),
    ],
)
def test_expression_forms(source: str, shape: str) -> None:
    assert expr(source) == shape


# ---------------------------------------------------------------- literals


@pytest.mark.parametrize(
    "source, value",
    [
        ("0", 0),
        ("42", 42),
        ("007", 7),
        ("010", 10),
        ("0x1F", 31),
        ("0xff", 255),
        ("0o17", 15),
        ("9223372036854775807", 2**63 - 1),
    ],
)
def test_integer_literals(source: str, value: int) -> None:
    (stmt,) = parse(f"x = {source};").items
    literal = stmt.values[0]
    assert isinstance(literal, ast.IntLit) and literal.value == value


@pytest.mark.parametrize(
    "source, value",
    [
        ("1.0", 1.0),
        ("0.5", 0.5),
        ("2.3e-2", 0.023),
        ("1e3", 1000.0),
        ("1E3", 1000.0),
        ("1e+3", 1000.0),
        ("1.5e+2", 150.0),
        ("007.50", 7.5),
        ("inf", math.inf),
    ],
)
def test_float_literals(source: str, value: float) -> None:
    (stmt,) = parse(f"x = {source};").items
    literal = stmt.values[0]
    assert isinstance(literal, ast.FloatLit) and literal.value == value


def test_nan_and_booleans() -> None:
    (stmt,) = parse("x = [NaN, true, false, -inf];").items
    nan, true, false, minus_inf = stmt.values[0].items
    assert isinstance(nan, ast.FloatLit) and math.isnan(nan.value)
    assert isinstance(true, ast.BoolLit) and true.value is True
    assert isinstance(false, ast.BoolLit) and false.value is False
    assert sexp(minus_inf) == "(- inf)"


@pytest.mark.parametrize(
    "source, value",
    [
        (r'"plain"', "plain"),
        (r'""', ""),
        (r'"a\\b"', "a\\b"),
        (r'"say \"hi\""', 'say "hi"'),
        (r'"\?\a\b\f\n\r\t\v"', "?\a\b\f\n\r\t\v"),
        (r'"\101\60\0"', "A0\0"),
        (r'"\1011"', "A1"),
        (r'"\x41\x4a\x7"', "AJ\x07"),
        (r'"\x414"', "A4"),
        ('"two\nlines"', "two\nlines"),
        ('"ünïcödé ✓"', "ünïcödé ✓"),
        ('"# not a comment // nor this"', "# not a comment // nor this"),
        ('"""\nline one\n  "quoted" \\t\n"""', '\nline one\n  "quoted" \t\n'),
        ('"""\n"""', "\n"),
        ("----\nA-B -- C\n----", "\nA-B -- C\n"),
        ("----\ntab\\tend\n----", "\ntab\tend\n"),
    ],
)
def test_string_literals(source: str, value: str) -> None:
    (stmt,) = parse(f"x = {source};").items
    literal = stmt.values[0]
    assert isinstance(literal, ast.StringLit) and literal.value == value


@pytest.mark.parametrize(
    "source, position, message",
    [
        ('x = "a\\qb";', (1, 7), "invalid escape sequence '\\q' in string"),
        ('x = "ok\n  \\8";', (2, 3), "invalid escape sequence '\\8' in string"),
        ('x = "\\xg";', (1, 6), "invalid escape sequence '\\x' in string"),
        ("x = 9223372036854775808;", (1, 5), "integer literal out of range"),
        ("x = 0x10000000000000000;", (1, 5), "integer literal out of range"),
        ("x = -9223372036854775808;", (1, 6), "integer literal out of range"),
        ("x = 1.;", (1, 5), "invalid number '1.'"),
        ("x = .5;", (1, 5), "invalid number '.5'"),
        ('x = "abc;\n', (1, 5), "unterminated string"),
        ('y = 1;\nx = """\nabc\n', (2, 5), "unterminated string"),
        ("x = ----\nabc\n", (1, 5), "unterminated string"),
        ("x = 1; /* never closed\n", (1, 8), "unterminated comment"),
        ("x = 1 $ 2;", (1, 7), "unexpected character '$'"),
    ],
)
def test_lexical_errors(source: str, position: tuple[int, int], message: str) -> None:
    problem = error(source)
    assert (problem.file, problem.line, problem.col) == ("t.swift", *position)
    assert message in problem.message


def test_comments_of_all_kinds() -> None:
    source = """#!/usr/bin/env swift-t
// line comment
/* block
   comment */ x = 1; # trailing hash comment
# note: a hash comment line
y = /* inline */ 2; // end
#includes are not this: a comment
z = "#x"; #include "mid-line is a comment"
"""
    assert [sexp(s) for s in parse(source).items] == [
        "(Assign targets=[x] values=[1])",
        "(Assign targets=[y] values=[2])",
        '(Assign targets=[z] values=["#x"])',
    ]


# ---------------------------------------------------------------- declarations and assignments


@pytest.mark.parametrize(
    "source, shape",
    [
        ("int x;", "(DeclStmt decls=[(VarDecl type=int name='x')])"),
        ("int x = 3;", "(DeclStmt decls=[(VarDecl type=int name='x' init=3)])"),
        (
            "int a, b = 2, C[];",
            "(DeclStmt decls=[(VarDecl type=int name='a') (VarDecl type=int name='b' init=2) "
            "(VarDecl type=int[] name='C')])",
        ),
        ("int A[][string];", "(DeclStmt decls=[(VarDecl type=int[][string] name='A')])"),
        ("float M[int][boolean];", "(DeclStmt decls=[(VarDecl type=float[int][boolean] name='M')])"),
        ('file f <"out.txt">;', "(DeclStmt decls=[(VarDecl type=file name='f' mapping=\"out.txt\")])"),
        (
            'file f <"out-" + i + ".txt"> = g();',
            "(DeclStmt decls=[(VarDecl type=file name='f' mapping=(+ (+ \"out-\" i) \".txt\") "
            "init=(Call func='g'))])",
        ),
        ('file f<"x"> = g();', "(DeclStmt decls=[(VarDecl type=file name='f' mapping=\"x\" init=(Call func='g'))])"),
        (
            'file f <sprintf("o%i", i)>;',
            "(DeclStmt decls=[(VarDecl type=file name='f' mapping=(Call func='sprintf' args=[\"o%i\" "
            "i]))])",
        ),
        (
            "global const int N = 10;",
            "(DeclStmt decls=[(VarDecl type=int name='N' init=10)] is_global_const=True)",
        ),
        ("Point p;", "(DeclStmt decls=[(VarDecl type=Point name='p')])"),
        (
            'string s[string] = {"a": "b"};',
            "(DeclStmt decls=[(VarDecl type=string[string] name='s' init=(DictLit items=[[\"a\" "
            "\"b\"]]))])",
        ),
        ("x = e;", "(Assign targets=[x] values=[e])"),
        ("A[k] = e;", "(Assign targets=[A[k]] values=[e])"),
        ("A[i][j] = e;", "(Assign targets=[A[i][j]] values=[e])"),
        ("p.f = e;", "(Assign targets=[p.f] values=[e])"),
        ("A[i].f = e;", "(Assign targets=[A[i].f] values=[e])"),
        ("a, b = f();", "(Assign targets=[a b] values=[(Call func='f')])"),
        ("(a, b) = f();", "(Assign targets=[a b] values=[(Call func='f')])"),
        ("x, y = 1, 2;", "(Assign targets=[x y] values=[1 2])"),
        ("x = @prio=3 f(i);", "(Assign targets=[x] values=[(Call func='f' args=[i] prio=3)])"),
        ("f(x);", "(ExprStmt expr=(Call func='f' args=[x]))"),
        ("@prio=2 f(x);", "(ExprStmt expr=(Call func='f' args=[x] prio=2))"),
        (
            "main { (a, b) = f(); }",
            "(FuncDef name='main' outputs=[] inputs=[] body=(Block stmts=[(Assign targets=[a b] "
            "values=[(Call func='f')])]))",
        ),
    ],
)
def test_statements(source: str, shape: str) -> None:
    assert item(source) == shape


def test_each_variable_gets_its_own_type_ref() -> None:
    (decl,) = parse("int a[], b;").items
    first, second = decl.decls
    assert first.type is not second.type
    assert (first.type.dims, second.type.dims) == ([None], [])
    assert (first.type.line, first.type.col, second.type.col) == (1, 1, 1)


@pytest.mark.parametrize(
    "source, shape",
    [
        (
            "f(x) => g(y);",
            "(Chain links=[(ExprStmt expr=(Call func='f' args=[x])) (ExprStmt expr=(Call func='g' args=[y]))])",
        ),
        (
            "s1() => s2() => { trace(1); }",
            "(Chain links=[(ExprStmt expr=(Call func='s1')) (ExprStmt expr=(Call func='s2')) "
            "(Block stmts=[(ExprStmt expr=(Call func='trace' args=[1]))])])",
        ),
        (
            "int a = f() => x = g(a) => trace(x);",
            "(Chain links=[(DeclStmt decls=[(VarDecl type=int name='a' init=(Call func='f'))]) "
            "(Assign targets=[x] values=[(Call func='g' args=[a])]) (ExprStmt expr=(Call func='trace' args=[x]))])",
        ),
        ("v = f() = > g();", "(Chain links=[(Assign targets=[v] values=[(Call func='f')]) (ExprStmt expr=(Call func='g'))])"),
        (
            "v = f() = /* why not */ > g();",
            "(Chain links=[(Assign targets=[v] values=[(Call func='f')]) (ExprStmt expr=(Call "
            "func='g'))])",
        ),
        (
            "int a => f(a);",
            "(Chain links=[(DeclStmt decls=[(VarDecl type=int name='a')]) (ExprStmt expr=(Call "
            "func='f' args=[a]))])",
        ),
    ],
)
def test_chains(source: str, shape: str) -> None:
    assert item(source) == shape


# ---------------------------------------------------------------- definitions


@pytest.mark.parametrize(
    "source, shape",
    [
        (
            "(int o) inc(int i) { o = i+1; }",
            "(FuncDef name='inc' outputs=[(Param type=int name='o')] inputs=[(Param type=int name='i')] "
            "body=(Block stmts=[(Assign targets=[o] values=[(+ i 1)])]))",
        ),
        (
            "(int q, int r) qr(int a, int b) {}",
            "(FuncDef name='qr' outputs=[(Param type=int name='q') (Param type=int name='r')] "
            "inputs=[(Param type=int name='a') (Param type=int name='b')] body=(Block))",
        ),
        ("note(string s) {}", "(FuncDef name='note' outputs=[] inputs=[(Param type=string name='s')] body=(Block))"),
        ("() f () {}", "(FuncDef name='f' outputs=[] inputs=[] body=(Block))"),
        ("f() {}", "(FuncDef name='f' outputs=[] inputs=[] body=(Block))"),
        ("main { }", "(FuncDef name='main' outputs=[] inputs=[] body=(Block))"),
        (
            "(int o) seven { o = 7; }",
            "(FuncDef name='seven' outputs=[(Param type=int name='o')] inputs=[] body=(Block "
            "stmts=[(Assign targets=[o] values=[7])]))",
        ),
        (
            "(int o) f(int a, int n = 3, float s = -1.5, int m = -3, string t = \"x\", boolean b = true) {}",
            "(FuncDef name='f' outputs=[(Param type=int name='o')] inputs=[(Param type=int name='a') "
            "(Param type=int name='n' default=3) (Param type=float name='s' default=-1.5) "
            "(Param type=int name='m' default=-3) (Param type=string name='t' default=\"x\") "
            "(Param type=boolean name='b' default=true)] body=(Block))",
        ),
        (
            "(int o[]) f(string A[][string], file fs[]) {}",
            "(FuncDef name='f' outputs=[(Param type=int[] name='o')] "
            "inputs=[(Param type=string[][string] name='A') (Param type=file[] name='fs')] body=(Block))",
        ),
        (
            "@pure @sideeffectfree @deterministic @dispatch=WORKER @suppress=unused @deprecated\n(int o) f(int i) {}",
            "(FuncDef name='f' outputs=[(Param type=int name='o')] inputs=[(Param type=int name='i')] body=(Block) "
            "annotations={pure=None sideeffectfree=None deterministic=None dispatch=WORKER suppress=unused deprecated=None})",
        ),
        (
            "@dispatch=WORKER f(int i) {}",
            "(FuncDef name='f' outputs=[] inputs=[(Param type=int name='i')] body=(Block) "
            "annotations={dispatch=WORKER})",
        ),
        (
            "@dispatch=WORKER (int o) f(int i) { o = i; }",
            "(FuncDef name='f' outputs=[(Param type=int name='o')] inputs=[(Param type=int name='i')] "
            "body=(Block stmts=[(Assign targets=[o] values=[i])]) annotations={dispatch=WORKER})",
        ),
        ("@pure main {}", "(FuncDef name='main' outputs=[] inputs=[] body=(Block) annotations={pure=None})"),
    ],
)
def test_function_definitions(source: str, shape: str) -> None:
    assert item(source) == shape


@pytest.mark.parametrize(
    "source, command",
    [
        ('app (file o) f (file i) { "cat" @i @stdout=o }', "(AppCommand words=[\"cat\" (FilenameOf operand=i)] stdout=o)"),
        ('app (file o) f (file i) { "cat" @i @stdout=o; }', "(AppCommand words=[\"cat\" (FilenameOf operand=i)] stdout=o)"),
        (
            'app (file o) f (file i, file e) { @stdin=i "tr" "a-z" @stderr=e "A-Z" @stdout=o }',
            '(AppCommand words=["tr" "a-z" "A-Z"] stdin=i stdout=o stderr=e)',
        ),
        (
            'app (void v) f (int n, string A[], file fs[], P p) { "echo" n -1 2.5 true A A[0] @fs[1] p.x (n + 1) [n, 2] }',
            '(AppCommand words=["echo" n -1 2.5 true A A[0] (FilenameOf operand=fs[1]) p.x (+ n 1) (ArrayLit items=[n 2])])',
        ),
        (
            'app (void v) f (int n, string A[]) { "echo" [1, n] "-x" A [0] @p.f[n] }',
            '(AppCommand words=["echo" (ArrayLit items=[1 n]) "-x" A[0] (FilenameOf operand=p.f[n])])',
        ),
        ('app f (int n) { "echo" n }', '(AppCommand words=["echo" n])'),
    ],
)
def test_app_definitions(source: str, command: str) -> None:
    (app,) = parse(source).items
    assert isinstance(app, ast.AppDef) and app.name == "f"
    assert sexp(app.command) == command


def test_app_definition_parts() -> None:
    (app,) = parse('@dispatch=WORKER app (file out, void done) name (string a1, int a2) { "prog" a1 a2 }').items
    assert sexp(app.outputs) == "[(Param type=file name='out') (Param type=void name='done')]"
    assert sexp(app.inputs) == "[(Param type=string name='a1') (Param type=int name='a2')]"
    assert sexp(app.annotations) == "{dispatch=WORKER}"
    assert (app.line, app.col, app.command.line, app.command.col) == (1, 1, 1, 71)


@pytest.mark.parametrize(
    "source, shape",
    [
        (
            "type P { int x; string tags[]; float m[string][]; }",
            "(StructDef name='P' fields=[(StructField type=int name='x') (StructField type=string[] name='tags') "
            "(StructField type=float[string][] name='m')])",
        ),
        ("type E { }", "(StructDef name='E' fields=[])"),
        ("type Q { P a, b; }", "(StructDef name='Q' fields=[(StructField type=P name='a') (StructField type=P name='b')])"),
        ("typedef N int;", "(TypeDef name='N' base=int distinct=False)"),
        ("type N int;", "(TypeDef name='N' base=int distinct=True)"),
        ("typedef Ns int[];", "(TypeDef name='Ns' base=int[] distinct=False)"),
        ("typedef M string[string];", "(TypeDef name='M' base=string[string] distinct=False)"),
        ("import io;", "(Import module='io')"),
        ("import a.b.c;", "(Import module='a.b.c')"),
        ("import string;", "(Import module='string')"),
    ],
)
def test_types_and_imports(source: str, shape: str) -> None:
    assert item(source) == shape


# ---------------------------------------------------------------- control flow


@pytest.mark.parametrize(
    "source, shape",
    [
        ("if (c) { f(); }", "(If cond=c then=(Block stmts=[(ExprStmt expr=(Call func='f'))]))"),
        ("if (c) {} else {}", "(If cond=c then=(Block) orelse=(Block))"),
        (
            "if (a) {} else if (b) {} else {}",
            "(If cond=a then=(Block) orelse=(Block stmts=[(If cond=b then=(Block) orelse=(Block))]))",
        ),
        (
            "switch (n) { case 1: f(); g(); case 0x10: default: h(); }",
            "(Switch expr=n cases=[(Case value=1 body=(Block stmts=[(ExprStmt expr=(Call func='f')) "
            "(ExprStmt expr=(Call func='g'))])) (Case value=16 body=(Block))] "
            "default=(Block stmts=[(ExprStmt expr=(Call func='h'))]))",
        ),
        ("switch (n) { default: case 0: }", "(Switch expr=n cases=[(Case value=0 body=(Block))] default=(Block))"),
        ("switch (n) { }", "(Switch expr=n cases=[])"),
        ("foreach v in A {}", "(Foreach var='v' key=None iterable=A body=(Block) var_pos=(1, 9))"),
        (
            "foreach v, k in [1:n] { }",
            "(Foreach var='v' key='k' iterable=(RangeLit start=1 end=n) body=(Block) var_pos=(1, 9) key_pos=(1, 12))",
        ),
        ('foreach v in {"a": 1} {}', '(Foreach var=\'v\' key=None iterable=(DictLit items=[["a" 1]]) body=(Block) var_pos=(1, 9))'),
        (
            "@sync @splitdegree=4 @leafdegree=2 @unroll=8 @async foreach i in A {}",
            "(Foreach var='i' key=None iterable=A body=(Block) annotations={sync=None splitdegree=4 leafdegree=2 "
            "unroll=8 async=None} var_pos=(1, 61))",
        ),
        (
            "for (int i = 0, j = 1; i < n; i = i + 1, j = j * 2) { }",
            "(For init=[(ForInit type=int name='i' value=0) (ForInit type=None name='j' value=1)] cond=(< i n) "
            "update=[(ForUpdate name='i' value=(+ i 1)) (ForUpdate name='j' value=(* j 2))] body=(Block))",
        ),
        (
            "@sync for (i = 0; i; i = 0) {}",
            "(For init=[(ForInit type=None name='i' value=0)] cond=i update=[(ForUpdate name='i' "
            "value=0)] body=(Block) annotations={sync=None})",
        ),
        ("wait (a, b) { }", "(Wait exprs=[a b] body=(Block))"),
        ("wait deep (A) { }", "(Wait exprs=[A] body=(Block) deep=True)"),
        ("wait (f(x)) { }", "(Wait exprs=[(Call func='f' args=[x])] body=(Block))"),
        (
            "{ int x; { x = 1; } }",
            "(Block stmts=[(DeclStmt decls=[(VarDecl type=int name='x')]) (Block stmts=[(Assign "
            "targets=[x] values=[1])])])",
        ),
    ],
)
def test_control_flow(source: str, shape: str) -> None:
    assert item(source) == shape


def test_stray_semicolons_are_empty_statements() -> None:
    assert [sexp(s) for s in parse(";; x = 1;; if (c) {};").items] == [
        "(Assign targets=[x] values=[1])",
        "(If cond=c then=(Block))",
    ]


# ---------------------------------------------------------------- positions


POSITIONED = """import io;
type P { int x; }
@pure (int o) f(int i, int n = -2) {
  o = i + n;
}
app (file out) cp (file src) {
  "cp" @src @out
}
main {
  int A[];
  foreach v, k in [1:3] {
    A[k] = @prio=k f(v);
  }
  if (size(A) > 0) { trace(A[1]); } else { wait deep (A) { } }
  switch (1) { case 1: x = "s" + 1.5; default: }
  for (int i = 0; i < 3; i = i + 1) { f(i) => trace(i); }
  string m[string] = {"a": "b"};
  file g <"o.txt"> = cp(input("i"));
}
"""


def test_every_node_has_a_position() -> None:
    module = parse_text(POSITIONED, "pos.swift")
    nodes = list(walk(module))
    assert len(nodes) > 100
    for node in nodes:
        assert node.file == "pos.swift", node
        assert node.line >= 1 and node.col >= 1, node


@pytest.mark.parametrize(
    "path, position",
    [
        (lambda m: m.items[1], (2, 1)),  # type
        (lambda m: m.items[1].fields[0], (2, 10)),  # StructField: its type
        (lambda m: m.items[2], (3, 1)),  # FuncDef: first token, the annotation
        (lambda m: m.items[2].inputs[1], (3, 24)),  # Param
        (lambda m: m.items[2].inputs[1].default, (3, 32)),  # folded -2: at the '-'
        (lambda m: m.items[2].body, (3, 36)),  # Block at '{'
        (lambda m: m.items[2].body.stmts[0].values[0], (4, 7)),  # BinOp at its left operand
        (lambda m: m.items[3].command, (7, 3)),  # AppCommand at its first word
        (lambda m: m.items[3].command.words[1], (7, 8)),  # FilenameOf at '@'
        (lambda m: m.items[4].body.stmts[0].decls[0], (10, 7)),  # VarDecl at its name
        (lambda m: m.items[4].body.stmts[1], (11, 3)),  # Foreach
        (lambda m: m.items[4].body.stmts[1].body.stmts[0].values[0], (12, 12)),  # prefixed Call at '@'
        (lambda m: m.items[4].body.stmts[1].body.stmts[0].values[0].prio, (12, 18)),
        (lambda m: m.items[4].body.stmts[2].orelse, (14, 42)),
        (lambda m: m.items[4].body.stmts[2].orelse.stmts[0], (14, 44)),  # Wait
        (lambda m: m.items[4].body.stmts[3].cases[0], (15, 16)),  # Case
        (lambda m: m.items[4].body.stmts[3].default, (15, 39)),  # default Block
        (lambda m: m.items[4].body.stmts[4].init[0], (16, 8)),  # ForInit at its type
        (lambda m: m.items[4].body.stmts[4].update[0], (16, 26)),
        (lambda m: m.items[4].body.stmts[4].body.stmts[0], (16, 39)),  # Chain
        (lambda m: m.items[4].body.stmts[5].decls[0].init, (17, 22)),  # DictLit
        (lambda m: m.items[4].body.stmts[6].decls[0].mapping, (18, 11)),
    ],
)
def test_node_positions(path, position: tuple[int, int]) -> None:
    node = path(parse_text(POSITIONED, "pos.swift"))
    assert (node.line, node.col) == position


def test_foreach_records_variable_positions() -> None:
    loop = parse_text(POSITIONED, "pos.swift").items[4].body.stmts[1]
    assert (loop.var_pos, loop.key_pos) == ((11, 11), (11, 14))


def test_module_position_and_file() -> None:
    module = parse_text("x = 1;", "a/b.swift")
    assert (module.file, module.line, module.col) == ("a/b.swift", 1, 1)
    assert parse_text("", "empty.swift").items == []


# ---------------------------------------------------------------- includes


def test_include_splices_text_and_keeps_file_names(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "defs.swift").write_text("(int o) twice(int i) {\n  o = 2 * i;\n}\n")
    (tmp_path / "main.swift").write_text('#include "lib/defs.swift"\ntrace(twice(2));\n')
    module = parse_file(str(tmp_path / "main.swift"))
    func, call = module.items
    assert isinstance(func, ast.FuncDef) and func.file == str(tmp_path / "lib" / "defs.swift")
    assert (func.body.stmts[0].line, func.body.stmts[0].col) == (2, 3)
    assert call.file == str(tmp_path / "main.swift") and call.line == 2


def test_include_inside_a_block_is_textual(tmp_path: Path) -> None:
    (tmp_path / "body.swift").write_text("  x = 1;\n")
    (tmp_path / "main.swift").write_text("main {\n  #include <body.swift>\n  y = 2;\n}\n")
    (main,) = parse_file(str(tmp_path / "main.swift")).items
    assert [sexp(s) for s in main.body.stmts] == ["(Assign targets=[x] values=[1])", "(Assign targets=[y] values=[2])"]
    assert main.body.stmts[0].file.endswith("body.swift")


def test_include_search_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for where, value in (("beside", 1), ("incdir", 2), ("cwd", 3)):
        (tmp_path / where).mkdir()
        (tmp_path / where / "v.swift").write_text(f"v = {value};\n")
    (tmp_path / "beside" / "main.swift").write_text('#include "v.swift"\n')
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "main.swift").write_text('#include "v.swift"\n')
    monkeypatch.chdir(tmp_path / "cwd")
    first = parse_file(str(tmp_path / "beside" / "main.swift"), [str(tmp_path / "incdir")])
    second = parse_file(str(tmp_path / "other" / "main.swift"), [str(tmp_path / "incdir")])
    third = parse_file(str(tmp_path / "other" / "main.swift"))
    assert [m.items[0].values[0].value for m in (first, second, third)] == [1, 2, 3]
    assert third.items[0].file == "v.swift"


def test_errors_inside_included_files_name_that_file(tmp_path: Path) -> None:
    (tmp_path / "bad.swift").write_text("// helper\nx = (1;\n")
    (tmp_path / "main.swift").write_text('y = 2;\n#include "bad.swift"\n')
    with pytest.raises(CompileError) as caught:
        parse_file(str(tmp_path / "main.swift"))
    assert (caught.value.file, caught.value.line, caught.value.col) == (str(tmp_path / "bad.swift"), 2, 7)


def test_hash_lines_that_are_not_directives_are_comments(tmp_path: Path) -> None:
    source = '# include "missing.swift"\n#includes nothing\nx = 1; #include "missing.swift"\n'
    assert [sexp(s) for s in parse(source).items] == ["(Assign targets=[x] values=[1])"]


def test_library_includes_read_as_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    source = "#include <builtins.swift>\n#include <io.swift>\n  #include <unix.swift>\n"
    first, second = parse_text(source, "old.swift").items
    assert [sexp(first), sexp(second)] == ["(Import module='io')", "(Import module='unix')"]
    assert [(first.line, first.col), (second.line, second.col)] == [(2, 1), (3, 3)]
    (tmp_path / "io.swift").write_text("x = 1;\n")
    (tmp_path / "main.swift").write_text("#include <io.swift>\n")
    (found,) = parse_file(str(tmp_path / "main.swift")).items
    assert sexp(found) == "(Assign targets=[x] values=[1])"
    assert error('#include "io.swift"\n').message == "cannot find include file 'io.swift'"


def test_include_errors(tmp_path: Path) -> None:
    (tmp_path / "a.swift").write_text('x = 1;\n#include "b.swift"\n')
    (tmp_path / "b.swift").write_text('\n  #include "a.swift"\n')
    with pytest.raises(CompileError) as cycle:
        parse_file(str(tmp_path / "a.swift"))
    assert (cycle.value.file, cycle.value.line, cycle.value.col) == (str(tmp_path / "b.swift"), 2, 3)
    assert "#include cycle" in cycle.value.message
    missing = error('x = 1;\n#include "no/such.swift"\n')
    assert (missing.line, missing.col, missing.message) == (2, 1, "cannot find include file 'no/such.swift'")
    malformed = error("#include nothing\n")
    assert (malformed.line, malformed.col) == (1, 1) and "malformed #include" in malformed.message


def test_unreadable_include(tmp_path: Path) -> None:
    (tmp_path / "latin1.swift").write_bytes(b"s = \"caf\xe9\";\n")
    (tmp_path / "main.swift").write_text('\n#include "latin1.swift"\n')
    with pytest.raises(CompileError) as caught:
        parse_file(str(tmp_path / "main.swift"))
    assert (caught.value.line, caught.value.col) == (2, 1)
    assert caught.value.message == "cannot include 'latin1.swift': file is not valid UTF-8"


def test_parse_file_errors(tmp_path: Path) -> None:
    with pytest.raises(CompileError) as missing:
        parse_file(str(tmp_path / "nope.swift"))
    assert "cannot read file" in missing.value.message
    bad = tmp_path / "bad.swift"
    bad.write_bytes(b"x = 1;\ny = \xff;\n")
    with pytest.raises(CompileError) as undecodable:
        parse_file(str(bad))
    assert (undecodable.value.line, undecodable.value.col) == (2, 5)


def test_crlf_and_bom() -> None:
    module = parse_text('\ufeffx = 1;\r\ny = """\r\nab\r\n""";\r\n', "w.swift")
    assert [sexp(s) for s in module.items] == ['(Assign targets=[x] values=[1])', '(Assign targets=[y] values=["\\nab\\n"])']
    assert module.items[1].line == 2


# ---------------------------------------------------------------- unsupported features


@pytest.mark.parametrize(
    "source, position, what",
    [
        ('(int o) f(int i) "turbine" "0.0" [ "set <<o>> <<i>>" ];', (1, 18), "Tcl leaf functions"),
        ('@dispatch=WORKER (float o) g(float i) "pkg" "1.0" [\n  "set <<o>> [ f <<i>> ]"\n];', (1, 39), "Tcl leaf functions"),
        ('f(int i) "pkg" "1.0" "f_tcl";', (1, 10), "Tcl leaf functions"),
        ("pragma worktypedef gpu;", (1, 1), "pragma"),
        ("main {\n  @par=4 f(x);\n}", (2, 3), "@par"),
        ("@par (int o) f(int i) {}", (1, 1), "@par"),
        ("bag<int> b;", (1, 1), "bag<T>"),
        ("main { bag<string> words; }", (1, 8), "bag<T>"),
        ("f(bag<int> b) {}", (1, 3), "bag<T>"),
        ("b += 1;", (1, 3), "+="),
        ("main {\n  A[i] += x;\n}", (2, 8), "+="),
        ("x := 1;", (1, 3), ":="),
        ("updateable float x = 1.0;", (1, 1), "updateable"),
        ("updateable_float x = 1.0;", (1, 1), "updateable"),
        ("main {\n  x <incr> := 1;\n}", (2, 5), ":="),
        ("iterate v { trace(v); } until (v > 3);", (1, 1), "iterate"),
        ("blob b;", (1, 1), "blob"),
        ("(blob o) f() {}", (1, 2), "blob"),
        ("typedef B blob;", (1, 11), "blob"),
        ("(T o) f<T>(T i) { o = i; }", (1, 8), "type parameters"),
        ("(T o) pick<T, U>(T i, U j) { o = i; }", (1, 11), "type parameters"),
        ("type blob { int x; }", (1, 6), "blob"),
        ("typedef blob int;", (1, 9), "blob"),
        ("<T> (T o) f(T i) { o = i; }", (1, 1), "type parameters"),
        ("f<T>(T i) { }", (1, 2), "type parameters"),
        ("(int|float o) f() {}", (1, 5), "union types"),
        ('import "lib/util.swift";', (1, 1), 'import "path"'),
        ("#undef N\n", (1, 1), "preprocessor directive #undef"),
        ("x = 1;\n  #if DEBUG\n#endif\n", (2, 3), "preprocessor directive #if"),
        ("#pragma once\n", (1, 1), "preprocessor directive #pragma"),
        ("@checkpoint (int o) f(int i) { o = i; }", (1, 1), "checkpointing"),
    ],
)
def test_unsupported_features(source: str, position: tuple[int, int], what: str) -> None:
    problem = error(source)
    assert (problem.line, problem.col) == position
    assert problem.message.startswith("unsupported feature: ") and what in problem.message


def test_unsupported_feature_names_are_fine_elsewhere() -> None:
    # A struct that is not called blob, and ordinary uses of `bag`, `<` and `>`, are accepted.
    module = parse("type bloblike { int x; } bag = 1; t = bag < x > y; updateable = 2;")
    assert len(module.items) == 4


# ---------------------------------------------------------------- syntax errors

_LARK_INTERNALS = re.compile(r"__ANON|\b[A-Z][A-Z_]+\b|Token\(|\$END|[Ll]ark")


@pytest.mark.parametrize(
    "source, position, message",
    [
        ("main {\n  int x = 1\n}\n", (3, 1), "syntax error: missing ';' after statement"),
        ("main {\n  x = f(1;\n}", (2, 10), "syntax error: unexpected ';', expected ')' or ','"),
        ("x = 1 2;", (1, 7), "syntax error: unexpected '2', expected ';' or ','"),
        ("main {\n  trace(1);\n", (2, 12), "syntax error: unexpected end of file, expected '}' or a statement"),
        ("if x > 1 { }", (1, 4), "syntax error: unexpected 'x', expected '('"),
        ("if (x) trace(1);", (1, 8), "syntax error: unexpected 'trace', expected '{'"),
        ("int in = 3;", (1, 5), "syntax error: unexpected 'in' (a reserved word)"),
        ("int x = ;", (1, 9), "syntax error: unexpected ';', expected an expression"),
        ('file f<"x">=g();', (1, 11), "syntax error: unexpected '>=', expected '>'"),
        ("foreach i [1:3] { }", (1, 11), "syntax error: unexpected '[', expected ',' or 'in'"),
        ("y = f((1, 2));", (1, 9), "syntax error: unexpected ',', expected ')'"),
        ("switch (n) { case -1: }", (1, 19), "case label must be a non-negative integer literal"),
        ("switch (n) { case x: }", (1, 19), "syntax error: unexpected 'x', expected an integer"),
        ("switch (n) { default: default: }", (1, 23), "duplicate default in switch"),
        ("f(a=1, 2);", (1, 8), "positional argument after a keyword argument"),
        ('app (file o) f () { @stdout=o @stdout=o "ls" }', (1, 31), "duplicate @stdout redirection"),
        ('app (file o) f () { @stdout=o }', (1, 21), "app command has no program to run"),
        ("@prio=1 @prio=2 f();", (1, 10), "duplicate annotation @prio"),
        ("x = [1, 2;", (1, 10), "syntax error: unexpected ';', expected ']' or ','"),
        ("main { type P { int x; } }", (1, 8), "syntax error: unexpected 'type' (a reserved word)"),
        ("x = a.1;", (1, 6), "invalid number '.1'"),
        ('x = "unclosed);\ny = "b";\n', (2, 6), "is the string that starts on line 1 missing its closing quote?"),
        ("x = 1 +;", (1, 8), "syntax error: unexpected ';', expected an expression"),
        ("int until;", (1, 5), "'until' is a reserved word"),
        ("import io", (1, 10), "syntax error: unexpected end of file, expected ';'"),
        ("(int o) f(int i) { o = i; ", (1, 26), "syntax error: unexpected end of file"),
        ("x = 1 | 2;", (1, 7), "unexpected character '|'"),
        ("trace(1) trace(2);", (1, 10), "syntax error: unexpected 'trace', expected ';'"),
        ('x = "a" "b";', (1, 9), 'syntax error: unexpected string "b", expected \';\' or \',\''),
        ("(int o) f(int i = x) {}", (1, 19), "syntax error: unexpected 'x', expected a literal"),
        ("main { } }", (1, 10), "syntax error: unexpected '}', expected a statement, a definition or end of file"),
        ("x = \x01;", (1, 5), "unexpected character U+0001"),
    ],
)
def test_syntax_errors(source: str, position: tuple[int, int], message: str) -> None:
    problem = error(source)
    assert (problem.file, problem.line, problem.col) == ("t.swift", *position)
    assert message in problem.message
    assert not _LARK_INTERNALS.search(problem.message), problem.message
    assert str(problem).startswith(f"t.swift:{position[0]}:{position[1]}: ")


# ---------------------------------------------------------------- the specification's examples


def _spec_examples() -> list[str]:
    if not LANGUAGE_SPEC.exists():
        return []
    return re.findall(r"```swift\n(.*?)```", LANGUAGE_SPEC.read_text(encoding="utf-8"), re.S)


@pytest.mark.skipif(not LANGUAGE_SPEC.exists(), reason="LANGUAGE.md not available")
def test_specification_examples_parse() -> None:
    examples = _spec_examples()
    assert len(examples) >= 5
    for example in examples:
        module = parse_text(example, "example.swift")
        assert module.items


def test_parses_a_long_expression_without_recursion_limits() -> None:
    source = "x = " + " + ".join(["1"] * 3000) + ";"
    (stmt,) = parse(source).items
    assert isinstance(stmt.values[0], ast.BinOp)


def test_grammar_is_built_once() -> None:
    assert grammar() is grammar()
