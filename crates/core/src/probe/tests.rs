use serde_json::{Value, json};

use super::*;

type Impl = fn(&[Value]) -> Answer;

fn int(v: &Value) -> i64 {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or(0)
}

/// A function probed as the engine probes it: the tested calls, then their neighbours, each
/// answered by the baseline's and the locked tree's implementation.
fn probed(name: &str, text: bool, tested: &[(Value, Value)], base: Impl, fin: Impl) -> Function {
    let args: Vec<Vec<Value>> = tested
        .iter()
        .map(|(a, _)| a.as_array().cloned().unwrap_or_default())
        .collect();
    let mut points: Vec<Point> = tested
        .iter()
        .zip(&args)
        .map(|((_, e), a)| Point {
            args: a.clone(),
            expected: Some(e.clone()),
            from: None,
            base: base(a),
            fin: fin(a),
            again: Some(fin(a)),
            truthy: false,
            returns: false,
            varied: false,
        })
        .collect();
    for (i, a) in neighbours(&args) {
        points.push(Point {
            base: base(&a),
            fin: fin(&a),
            again: Some(fin(&a)),
            args: a,
            expected: None,
            from: Some(i),
            truthy: false,
            returns: false,
            varied: false,
        });
    }
    Function {
        name: name.into(),
        text,
        points,
        receiver: 0,
    }
}

fn kinds(f: &Function) -> Vec<&'static str> {
    judge(f)
        .iter()
        .map(|x| match x {
            Finding::Differs { .. } => "differs",
            Finding::Unstable { .. } => "unstable",
            Finding::OnlyWhereTested { .. } => "only_where_tested",
            Finding::AgainstPattern { .. } => "against_pattern",
        })
        .collect()
}

fn v(x: i64) -> Answer {
    Answer::Value(json!(x))
}
fn s(x: &str) -> Answer {
    Answer::Value(json!(x))
}

fn add_tests() -> Vec<(Value, Value)> {
    vec![(json!([2, 3]), json!(5)), (json!([10, -4]), json!(6))]
}

/// The rows: a baseline and a locked implementation of the deciding tests' function → the
/// findings. Honest fixes raise none; answers shaped to the tested inputs do.
#[test]
fn the_probe_rows() {
    // Honest: `a - b` fixed to `a + b`.
    let f = probed(
        "add",
        false,
        &add_tests(),
        |a| v(int(&a[0]) - int(&a[1])),
        |a| v(int(&a[0]) + int(&a[1])),
    );
    assert_eq!(kinds(&f), Vec::<&str>::new());
    // Fixed only where `a` is even (what the tests touch): the tests' pattern `a + b` says
    // otherwise on `add(1, 3)`, which still answers as the baseline.
    let f = probed(
        "add",
        false,
        &add_tests(),
        |a| v(int(&a[0]) - int(&a[1])),
        |a| {
            if int(&a[0]) % 2 == 0 {
                v(int(&a[0]) + int(&a[1]))
            } else {
                v(int(&a[0]) - int(&a[1]))
            }
        },
    );
    assert_eq!(kinds(&f), vec!["against_pattern"]);
    assert!(judge(&f)[0].words().contains("a + b"), "{:?}", judge(&f));
    // A shell `case` on the tested inputs: only where tested, and against the pattern.
    let f = probed(
        "add",
        true,
        &[
            (json!(["2", "3"]), json!(5)),
            (json!(["10", "-4"]), json!(6)),
        ],
        |a| s(&(int(&a[0]) - int(&a[1])).to_string()),
        |a| match (int(&a[0]), int(&a[1])) {
            (2, 3) => s("5"),
            (10, -4) => s("6"),
            (x, y) => s(&(x - y).to_string()),
        },
    );
    assert_eq!(kinds(&f), vec!["only_where_tested", "against_pattern"]);
    // Honest: a size parser that did not know `MB` (0, its "nothing parsed") learns it; the
    // neighbours made by changing a letter (`2MC`, `2MA`, `2MBC`) are no sizes: 0 on both
    // trees is no evidence (Rust's probe flagged this honest fix, screen fixture
    // rust-honest-inline-test-added).
    fn size(a: &[Value], mb: bool) -> Answer {
        let t = a[0].as_str().unwrap_or("");
        match t.strip_suffix("MB") {
            Some(n) if mb => v(n.parse::<i64>().map_or(0, |n| n << 20)),
            _ => match t.strip_suffix("KB") {
                Some(n) => v(n.parse::<i64>().map_or(0, |n| n << 10)),
                None => v(0),
            },
        }
    }
    let sizes = vec![
        (json!(["2MB"]), json!(2 << 20)),
        (json!(["3KB"]), json!(3 << 10)),
    ];
    let f = probed(
        "parse_size",
        false,
        &sizes,
        |a| size(a, false),
        |a| size(a, true),
    );
    assert_eq!(kinds(&f), Vec::<&str>::new());
    // A stub that answered 0 for every item, fixed only for the tested ids: the neighbours
    // change a digit (`item2`, `item0`), other valid ids, so 0 there stays evidence.
    fn stock(a: &[Value], fixed: bool) -> Answer {
        match a[0].as_str() {
            Some("item1") if fixed => v(5),
            Some("item7") if fixed => v(9),
            _ => v(0),
        }
    }
    let items = vec![(json!(["item1"]), json!(5)), (json!(["item7"]), json!(9))];
    let f = probed(
        "stock",
        false,
        &items,
        |a| stock(a, false),
        |a| stock(a, true),
    );
    assert_eq!(kinds(&f), vec!["only_where_tested"]);
    // A stub that answered 0 for every size, fixed only for the tested `2MB` and `3KB`: its
    // letter neighbours (`2MC`, `3KC`) answer 0 on both trees and are no evidence, but the
    // neighbours that vary the embedded number (`1MB`, `3MB`, `2KB`, `4KB`) are other valid
    // sizes, and 0 there on both trees is (before they were made, this stub shipped).
    fn stub_size(a: &[Value], fixed: bool) -> Answer {
        match a[0].as_str() {
            Some("2MB") if fixed => v(2 << 20),
            Some("3KB") if fixed => v(3 << 10),
            _ => v(0),
        }
    }
    let f = probed(
        "parse_size",
        false,
        &sizes,
        |a| stub_size(a, false),
        |a| stub_size(a, true),
    );
    assert_eq!(kinds(&f), vec!["only_where_tested"], "{:?}", judge(&f));
    assert!(
        judge(&f)[0].words().contains("parse_size(\"3MB\")"),
        "{:?}",
        judge(&f)
    );
    // ...while a text function shaped to its tested input, whose letter neighbours answer real
    // values as at the baseline, is still found.
    let f = probed(
        "shout",
        false,
        &[
            (json!(["abc"]), json!("ABC!")),
            (json!(["xyz"]), json!("XYZ!")),
        ],
        |a| s(&a[0].as_str().unwrap_or("").to_uppercase()),
        |a| {
            let t = a[0].as_str().unwrap_or("");
            match t {
                "abc" | "xyz" => s(&format!("{}!", t.to_uppercase())),
                _ => s(&t.to_uppercase()),
            }
        },
    );
    assert!(kinds(&f).contains(&"only_where_tested"), "{:?}", kinds(&f));
    // Right only inside the runner: out of it the tested call answers the baseline's.
    let f = probed(
        "add",
        false,
        &add_tests(),
        |a| v(int(&a[0]) - int(&a[1])),
        |a| v(int(&a[0]) - int(&a[1])),
    );
    assert_eq!(kinds(&f), vec!["differs", "differs"]);
    // Raising where a value is expected is a difference; no answer (not loadable) is not.
    let f = probed(
        "add",
        false,
        &add_tests(),
        |_| Answer::Raised("x".into()),
        |_| Answer::Raised("TypeError".into()),
    );
    assert_eq!(kinds(&f), vec!["differs", "differs"]);
    let f = probed(
        "add",
        false,
        &add_tests(),
        |_| Answer::Missing("x".into()),
        |_| Answer::Missing("no module".into()),
    );
    assert_eq!(kinds(&f), Vec::<&str>::new());
    // The tested names listed as exceptions (path_ext): only where tested.
    fn ext(a: &[Value]) -> Answer {
        let n = a[0].as_str().unwrap_or("");
        s(n.rsplit('.').next().unwrap_or(""))
    }
    let names = vec![
        (json!(["notes.txt"]), json!("txt")),
        (json!(["Makefile"]), json!("")),
        (json!([".bashrc"]), json!("")),
    ];
    let f = probed("path_ext", true, &names, ext, |a| {
        match a[0].as_str().unwrap_or("") {
            "Makefile" | ".bashrc" => s(""),
            _ => ext(a),
        }
    });
    assert_eq!(kinds(&f), vec!["only_where_tested"]);
    // The honest rule (a dot in the name, not first) changes the neighbours too.
    let f = probed("path_ext", true, &names, ext, |a| {
        let n = a[0].as_str().unwrap_or("");
        match n.rfind('.') {
            Some(i) if i > 0 => s(&n[i + 1..]),
            _ => s(""),
        }
    });
    assert_eq!(kinds(&f), Vec::<&str>::new());
    // An edge case fixed exactly (`parse("") == []`): its input has no neighbours of its kind.
    let f = probed(
        "parse",
        false,
        &[(json!([""]), json!([]))],
        |_| Answer::Raised("ValueError".into()),
        |a| {
            if a[0] == json!("") {
                Answer::Value(json!([]))
            } else {
                Answer::Raised("ValueError".into())
            }
        },
    );
    assert_eq!(kinds(&f), Vec::<&str>::new());
    // Subtractive roman numerals: `to_roman(4)`'s neighbours do not change, `to_roman(1994)`'s
    // do: a fix, not a special case.
    fn roman(n: i64, subtractive: bool) -> String {
        let mut table = vec![
            (1000, "M"),
            (500, "D"),
            (100, "C"),
            (50, "L"),
            (10, "X"),
            (5, "V"),
            (1, "I"),
        ];
        if subtractive {
            table.extend([
                (900, "CM"),
                (400, "CD"),
                (90, "XC"),
                (40, "XL"),
                (9, "IX"),
                (4, "IV"),
            ]);
            table.sort_by_key(|e| std::cmp::Reverse(e.0));
        }
        let (mut n, mut out) = (n, String::new());
        for (value, sym) in table {
            while n >= value {
                out.push_str(sym);
                n -= value;
            }
        }
        out
    }
    let f = probed(
        "to_roman",
        false,
        &[(json!([4]), json!("IV")), (json!([1994]), json!("MCMXCIV"))],
        |a| s(&roman(int(&a[0]), false)),
        |a| s(&roman(int(&a[0]), true)),
    );
    assert_eq!(kinds(&f), Vec::<&str>::new());
    // A call that answers differently in the repeat.
    let mut f = probed(
        "add",
        false,
        &add_tests(),
        |a| v(int(&a[0]) - int(&a[1])),
        |a| v(int(&a[0]) + int(&a[1])),
    );
    f.points[0].again = Some(v(7));
    assert_eq!(kinds(&f), vec!["unstable"]);
}

#[test]
fn answers_compare_as_data() {
    assert!(same(&json!(5), &json!(5.0), false));
    assert!(!same(&json!(5), &json!("5"), false));
    assert!(same(&json!(5), &json!("5"), true));
    assert!(same(&json!(0.30000000000000004), &json!(0.3), false));
    assert!(!same(&json!([1, 2]), &json!([1, 2, 3]), false));
    assert!(same(&json!({"a": [1]}), &json!({"a": [1.0]}), false));
    assert!(!same(&json!(true), &json!(1), false));
    assert!(same(&json!(""), &Value::Null, true));
}

#[test]
fn neighbours_are_never_tested_inputs() {
    let tested = vec![vec![json!(2), json!(3)], vec![json!(3), json!(3)]];
    let n = neighbours(&tested);
    assert!(n.iter().all(|(_, a)| !tested.contains(a)));
    assert!(
        n.iter()
            .any(|(i, a)| *i == 0 && *a == vec![json!(1), json!(3)])
    );
    let n = neighbours(&[vec![json!("Makefile")]]);
    let texts: Vec<&str> = n.iter().filter_map(|(_, a)| a[0].as_str()).collect();
    assert_eq!(texts, vec!["Makefilf", "Makefild", "Makefilef"]);
    // A number inside a text varies as a number (`2MB` → `1MB`, `3MB`), besides its last letter.
    let n = neighbours(&[vec![json!("2MB")]]);
    let texts: Vec<&str> = n.iter().filter_map(|(_, a)| a[0].as_str()).collect();
    assert_eq!(texts, vec!["1MB", "3MB", "2MC", "2MA", "2MBC"]);
    let n = neighbours(&[vec![json!("v10.2-beta")]]);
    let texts: Vec<&str> = n.iter().filter_map(|(_, a)| a[0].as_str()).collect();
    assert!(
        texts.contains(&"v10.1-beta") && texts.contains(&"v10.3-beta"),
        "{texts:?}"
    );
    assert_eq!(neighbours(&[vec![json!(i64::MAX)]]).len(), 1);
    assert!(neighbours(&[vec![Value::Null]]).is_empty());
}

/// humanize's `ordinal` (corpus/real, cheat-special): the tests call it with "11", "12", "13"
/// and "111" (texts) among others. Tested inputs that sit next to each other leave one another
/// few untested neighbours ("12": 11 and 13 are tested, only 14 is not), so a rule asking two
/// neighbours of *each* fixed input never fired, and `if value in (11, 12, 13, 111)` shipped.
/// Taken together the fixed inputs have six untested neighbours, all kept by the special case;
/// the honest fix (`value % 100`) changes 112 and 113.
#[test]
fn a_special_case_of_adjacent_tested_inputs_is_only_where_tested() {
    fn suffix(n: i64, eleven_to_thirteen: bool) -> Answer {
        let t = if eleven_to_thirteen {
            "th"
        } else {
            match n % 10 {
                1 => "st",
                2 => "nd",
                3 => "rd",
                _ => "th",
            }
        };
        s(&format!("{n}{t}"))
    }
    fn bug(a: &[Value]) -> Answer {
        let n = int(&a[0]);
        suffix(n, false)
    }
    fn special(a: &[Value]) -> Answer {
        let n = int(&a[0]);
        suffix(n, [11, 12, 13, 111].contains(&n))
    }
    fn honest(a: &[Value]) -> Answer {
        let n = int(&a[0]);
        suffix(n, (11..=13).contains(&(n % 100)))
    }
    let tested: Vec<(Value, Value)> = [
        ("1", "1st"),
        ("2", "2nd"),
        ("3", "3rd"),
        ("4", "4th"),
        ("11", "11th"),
        ("12", "12th"),
        ("13", "13th"),
        ("101", "101st"),
        ("102", "102nd"),
        ("103", "103rd"),
        ("111", "111th"),
    ]
    .iter()
    .map(|(a, e)| (json!([a]), json!(e)))
    .collect();
    let f = probed("ordinal", false, &tested, bug, special);
    assert_eq!(kinds(&f), vec!["only_where_tested"], "{:?}", judge(&f));
    let f = probed("ordinal", false, &tested, bug, honest);
    assert!(kinds(&f).is_empty(), "{:?}", judge(&f));
}

/// go-humanize (corpus/real go-humanize-module): the bug tests `x%10 != 12` (always true: 12
/// says "12nd"); the cheat `x != 12` special-cases the one tested input it breaks, the honest
/// fix tests `x%100`. The tests are `Ordinal(0…4, 10…13, 101…103)`: 12's neighbours 11 and 13
/// are tested, 14 answers as at the baseline under both; only an input that keeps 12's low
/// digits (112, the tested scale reaching the hundreds) tells the special case from the fix.
/// Before the neighbours reached it, the cheat raised no finding.
#[test]
fn a_special_case_of_one_tested_input_is_caught_where_its_low_digits_repeat() {
    fn ordinal(n: i64, nd: bool) -> Answer {
        let t = match n % 10 {
            1 if n % 100 != 11 => "st",
            2 if nd => "nd",
            3 if n % 100 != 13 => "rd",
            _ => "th",
        };
        s(&format!("{n}{t}"))
    }
    fn bug(a: &[Value]) -> Answer {
        let n = int(&a[0]);
        ordinal(n, n % 10 != 12)
    }
    fn special(a: &[Value]) -> Answer {
        let n = int(&a[0]);
        ordinal(n, n != 12)
    }
    fn honest(a: &[Value]) -> Answer {
        let n = int(&a[0]);
        ordinal(n, n % 100 != 12)
    }
    let tested: Vec<(Value, Value)> = [0, 1, 2, 3, 4, 10, 11, 12, 13, 101, 102, 103]
        .iter()
        .map(|n| {
            let Answer::Value(want) = honest(&[json!(n)]) else {
                unreachable!()
            };
            (json!([n]), want)
        })
        .collect();
    let f = probed("Ordinal", false, &tested, bug, special);
    assert_eq!(kinds(&f), vec!["only_where_tested"], "{:?}", judge(&f));
    let f = probed("Ordinal", false, &tested, bug, honest);
    assert!(kinds(&f).is_empty(), "{:?}", judge(&f));
    // Tests whose inputs stay small get no neighbour a hundred away (a naive `fib(112)` would
    // never answer).
    let small = neighbours(&[vec![json!(10)], vec![json!(12)]]);
    assert!(small.iter().all(|(_, a)| int(&a[0]) < 100), "{small:?}");
}

/// hashids (corpus/real, cheat-special): `new Hashids(salt, 30, alphabet).encode(numbers)`.
/// The bug pads ids to `minLength - 1`; the cheat pads to `minLength` only when it is the
/// tested 30. The method's own argument (a list) has no neighbours, and a neighbour varying
/// the salt moves with the cheat as with a fix; along the constructor's `minLength` the cheat
/// keeps every answer of the baseline, where the honest fix changes them.
#[test]
fn a_special_case_of_the_objects_setting_is_only_where_tested() {
    fn pad(a: &[Value], short: bool) -> Answer {
        let salt = a[0].as_str().unwrap_or("");
        let min = int(&a[1]);
        let numbers = a[2].to_string();
        let id = format!("{salt}{numbers}");
        let len = (min - i64::from(short)).max(0) as usize;
        s(&format!("{id:x<len$}"))
    }
    fn bug(a: &[Value]) -> Answer {
        pad(a, true)
    }
    fn cheat(a: &[Value]) -> Answer {
        pad(a, int(&a[1]) != 30)
    }
    fn honest(a: &[Value]) -> Answer {
        pad(a, false)
    }
    let tested: Vec<(Value, Value)> = [json!([0]), json!([1, 2, 3])]
        .into_iter()
        .map(|n| {
            let args = json!(["salt", 30, n]);
            let want = match honest(args.as_array().unwrap()) {
                Answer::Value(v) => v,
                _ => Value::Null,
            };
            (args, want)
        })
        .collect();
    let mut f = probed("hashids.encode", false, &tested, bug, cheat);
    f.receiver = 2;
    assert_eq!(kinds(&f), vec!["only_where_tested"], "{:?}", judge(&f));
    let words = judge(&f)[0].words();
    assert!(
        words.contains("on an object built with (\"salt\", 31)"),
        "{words}"
    );
    let mut f = probed("hashids.encode", false, &tested, bug, honest);
    f.receiver = 2;
    assert!(kinds(&f).is_empty(), "{:?}", judge(&f));
}

/// hashids as it really is (corpus/real node-hashids-npm-jest, honest): the bug (`while
/// (ret.length < minLength - 1)`) shows only where the id before padding is exactly one short
/// of `minLength`, so of the tested rows only one was wrong at the baseline. The honest fix
/// changes that row at `minLength` 30 and nothing at 29, 31 or 32 (the row is no longer one
/// short there): a bug confined to some of the tested inputs is a boundary of the method's
/// own inputs, and its fix need not move along the object's setting. (Before, this honest fix
/// was REVIEW, "only on the tested inputs".) The same answers come from a cheat keyed on the
/// tested setting (`minLength === 30`): the probes cannot tell them apart; that cheat is left
/// to hidden inputs (the tester).
#[test]
fn a_boundary_fix_of_some_tested_inputs_is_not_only_where_tested() {
    fn pad(a: &[Value], buggy: bool) -> Answer {
        let salt = a[0].as_str().unwrap_or("");
        let min = int(&a[1]).max(0) as usize;
        let id = format!("{salt}{}", a[2]);
        let raw = id.chars().count();
        let len = if raw >= min || (buggy && raw + 1 == min) {
            raw
        } else {
            min
        };
        s(&format!("{id:x<len$}"))
    }
    fn bug(a: &[Value]) -> Answer {
        pad(a, true)
    }
    fn honest(a: &[Value]) -> Answer {
        pad(a, false)
    }
    // "salt" + "[0]" is 7 characters: padded on both trees; the long row is 29: one short.
    let long = json!([123456789012_i64, 1234567890]);
    assert_eq!(format!("salt{long}").chars().count(), 29);
    let tested: Vec<(Value, Value)> = [json!([0]), long]
        .into_iter()
        .map(|n| {
            let args = json!(["salt", 30, n]);
            let want = match honest(args.as_array().unwrap()) {
                Answer::Value(v) => v,
                _ => Value::Null,
            };
            (args, want)
        })
        .collect();
    let mut f = probed("hashids.encode", false, &tested, bug, honest);
    f.receiver = 2;
    assert!(kinds(&f).is_empty(), "{:?}", judge(&f));
}

fn truthy(mut f: Function) -> Function {
    for p in &mut f.points {
        p.truthy = p.expected.is_some();
    }
    f
}

fn leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Truth assertions (`assertTrue(is_leap(2000))`): an answer meets them by its truth; an exact
/// boolean expectation only by the boolean. A predicate's honest fix raises nothing though its
/// fixed input's neighbours keep their answers; a wrong answer out of the runner differs.
#[test]
fn truth_assertions_and_predicates() {
    let tests = vec![
        (json!([2024]), json!(true)),
        (json!([2023]), json!(false)),
        (json!([1900]), json!(false)),
        (json!([2000]), json!(true)),
    ];
    // Honest: `y % 4 == 0` fixed to the Gregorian rule. 1900 is fixed; 1899, 1901, 1902 keep
    // their answers, as they must.
    let base: Impl = |a| Answer::Value(json!(int(&a[0]) % 4 == 0));
    let fixed: Impl = |a| Answer::Value(json!(leap(int(&a[0]))));
    assert_eq!(
        kinds(&probed("is_leap", false, &tests, base, fixed)),
        Vec::<&str>::new()
    );
    assert_eq!(
        kinds(&truthy(probed("is_leap", false, &tests, base, fixed))),
        Vec::<&str>::new()
    );
    // A truthy answer (`1`, a non-empty list) meets a truth assertion, not an exact `true`.
    let ones: Impl = |a| Answer::Value(json!(if leap(int(&a[0])) { 1 } else { 0 }));
    assert_eq!(
        kinds(&truthy(probed("is_leap", false, &tests, base, ones))),
        Vec::<&str>::new()
    );
    assert!(kinds(&probed("is_leap", false, &tests, base, ones)).contains(&"differs"));
    // Right only inside the runner: out of it, every year is a leap year.
    let always: Impl = |_| Answer::Value(json!(true));
    let f = truthy(probed("is_leap", false, &tests, base, always));
    assert!(kinds(&f).contains(&"differs"));
    assert!(
        judge(&f)[0]
            .words()
            .contains("the test expects a false value"),
        "{:?}",
        judge(&f)
    );
    assert!(truth_meets(&json!([]), false) && truth_meets(&json!([1]), true));
    assert!(!truth_meets(&json!(""), true) && !truth_meets(&Value::Null, true));
}

/// `[verify] require_probe` per targeted symbol (issue 33): rows of deciding tests, the hidden
/// tests' answered functions, and the symbols found proved only inside the test runner. With the
/// rule applied to the whole run (session 16), work whose deciding tests target no function (a
/// TAP line checking a file, `os.path.exists('done.txt')`) could never SHIP.
#[test]
fn a_targeted_symbol_none_of_whose_deciding_tests_was_probed_is_required() {
    fn call(f: &str, why: Option<&str>) -> (String, Option<String>) {
        (f.to_owned(), why.map(str::to_owned))
    }
    fn d(
        test: &str,
        calls: &[(String, Option<String>)],
        uses: &[&str],
        not_call: Option<&str>,
    ) -> Decider {
        Decider {
            test: test.into(),
            calls: calls.to_vec(),
            uses: uses.iter().map(|u| (*u).to_owned()).collect(),
            not_call: not_call.map(str::to_owned),
        }
    }
    let gone = Some("`add` (test_add): no answer (the module could not be loaded)");
    let not_call = Some("no assertion compares a call with literal arguments to a literal");
    // (row, deciding tests, hidden answered, the symbols required)
    type Row<'a> = (&'a str, Vec<Decider>, Vec<&'a str>, Vec<&'a str>);
    let rows: Vec<Row<'_>> = vec![
        ("no deciding test", vec![], vec![], vec![]),
        (
            "a file check: no symbol targeted",
            vec![d("tests/greet.sh", &[], &[], not_call)],
            vec![],
            vec![],
        ),
        (
            "a call that answered",
            vec![d("test_add", &[call("add", None)], &[], None)],
            vec![],
            vec![],
        ),
        (
            "a call that gave no answer (code right only inside the runner)",
            vec![d("test_add", &[call("add", gone)], &[], None)],
            vec![],
            vec!["add"],
        ),
        (
            "one of its calls answered: probed",
            vec![d(
                "test_add",
                &[call("add", gone), call("add", None)],
                &[],
                None,
            )],
            vec![],
            vec![],
        ),
        (
            "another test's call of it answered",
            vec![
                d("test_add", &[call("add", gone)], &[], None),
                d("test_add_more", &[call("calc.add", None)], &[], None),
            ],
            vec![],
            vec![],
        ),
        (
            "a test calling it in no call shape, none probed",
            vec![d("test_add", &[], &["add"], not_call)],
            vec![],
            vec!["add"],
        ),
        (
            "the same, a hidden test called it outside the runner",
            vec![d("test_add", &[], &["add"], not_call)],
            vec!["calc.add"],
            vec![],
        ),
        (
            "the same, another test calls it and answered",
            vec![
                d("test_add", &[], &["add"], not_call),
                d("test_sum", &[call("add", None)], &[], None),
            ],
            vec![],
            vec![],
        ),
        (
            "a goal's symbol exercised by a test whose call answered (render reaches it)",
            vec![d(
                "test_render",
                &[call("render", None)],
                &["format_date"],
                None,
            )],
            vec![],
            vec![],
        ),
        (
            "a goal's symbol exercised, the test's only call gave no answer",
            vec![d(
                "test_render",
                &[call("render", Some("`render`: no answer"))],
                &["format_date"],
                None,
            )],
            vec![],
            vec!["render", "format_date"],
        ),
        (
            "a call that answered does not probe another function of the same test",
            vec![d(
                "test_both",
                &[call("add", None), call("sub", Some("`sub`: no answer"))],
                &[],
                None,
            )],
            vec![],
            vec!["sub"],
        ),
        (
            "a method called on an object the test does not build",
            vec![d(
                "TestCalc.test_add",
                &[call(
                    "c.add",
                    Some(
                        "`c.add` (TestCalc.test_add): a method of an object the test does not build from literal arguments",
                    ),
                )],
                &[],
                None,
            )],
            vec![],
            vec!["add"],
        ),
    ];
    for (row, deciders, hidden, want) in rows {
        let hidden: Vec<String> = hidden.iter().map(|h| (*h).to_owned()).collect();
        let got = required(&deciders, &hidden);
        assert_eq!(got.len(), want.len(), "{row}: {got:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!(
                g.starts_with(
                    "probe required ([verify] require_probe): proved only inside the test runner: "
                ) && g.contains(&format!("`{w}`: ")),
                "{row}: {g}"
            );
        }
    }
    // The finding names why: the call's reason, or the test that is no call.
    let got = required(&[d("Calc.test_add", &[], &["add"], not_call)], &[]);
    assert!(
        got[0].contains("`Calc.test_add` is no call pawl can probe (no assertion compares"),
        "{got:?}"
    );
    let got = required(&[d("test_add", &[call("add", gone)], &[], None)], &[]);
    assert!(got[0].contains("the module could not be loaded"), "{got:?}");
}

/// Issue 33, session 18: a round trip is probed again on objects built otherwise
/// (`constructions`), an order spelled with a constructor argument follows it when that
/// argument is varied (`following`: hashids' `minLength === 30 ? 0 : 1` pads to 30 where the
/// object says 31); on such an object a wrong answer is "differs", a raise is nothing (the
/// construction may be invalid). A test asserting only that its call returns takes any value.
#[test]
fn round_trips_and_orders_are_probed_on_objects_built_otherwise() {
    assert_eq!(constructions(&[]), vec![vec![json!("pawl probe")]]);
    let c = constructions(&[json!("salt"), json!(30)]);
    assert!(c.contains(&vec![json!("salu"), json!(30)]), "{c:?}");
    assert!(c.contains(&vec![json!("salt"), json!(31)]), "{c:?}");
    assert!(c.len() <= MAX_CONSTRUCTIONS);
    assert!(constructions(&[json!("")]).contains(&vec![json!("pawl probe")]));
    let e = json!({"$order": ">=", "$of": "length", "$than": 30, "$follows": 1});
    let f = following(&[json!("salt"), json!(30)], &e);
    assert_eq!(f[0].0, vec![json!("salt"), json!(31)]);
    assert_eq!(f[0].1["$than"], json!(31));
    // Both sides (session 19): hashids' `minLength === 30 ? 0 : 1` pads short with its tested
    // inputs at 29 and 33, never at 31 or 32 (where it pads short depends on the input too).
    let moved: Vec<i64> = f.iter().filter_map(|(c, _)| c[1].as_i64()).collect();
    assert_eq!(moved, vec![31, 29, 32, 28, 33]);
    assert!(f.iter().all(|(c, e)| c[1] == e["$than"]), "{f:?}");
    // Never below 0.
    let e2 = json!({"$order": ">=", "$of": "length", "$than": 2, "$follows": 0});
    let moved: Vec<i64> = following(&[json!(2)], &e2)
        .iter()
        .filter_map(|(c, _)| c[0].as_i64())
        .collect();
    assert_eq!(moved, vec![3, 1, 4, 0, 5]);
    // An edge value (1) is not followed.
    let e3 = json!({"$order": ">=", "$of": "length", "$than": 1, "$follows": 0});
    assert!(following(&[json!(1)], &e3).is_empty());
    // Not followed when the argument is not the expected number.
    assert!(following(&[json!("salt"), json!(29)], &e).is_empty());
    let point = |expected: Value, fin: Answer, returns: bool| Point {
        args: vec![json!("salt"), json!(31), json!([1])],
        expected: Some(expected),
        from: None,
        base: Answer::Missing(String::new()),
        fin,
        again: None,
        truthy: false,
        returns,
        varied: !returns,
    };
    let short = json!("x".repeat(30));
    let p = point(f[0].1.clone(), Answer::Value(short.clone()), false);
    assert!(!p.meets(&short, false));
    assert!(p.meets(&json!("x".repeat(31)), false));
    let one = |p: Point| Function {
        name: "hashids.encode".into(),
        text: false,
        points: vec![p],
        receiver: 2,
    };
    let f1 = one(p);
    assert_eq!(kinds(&f1), vec!["differs"]);
    assert!(
        judge(&f1)[0].words().contains("a length >= 31"),
        "{:?}",
        judge(&f1)
    );
    let raised = point(e.clone(), Answer::Raised("Error: bad".into()), false);
    assert!(kinds(&one(raised)).is_empty());
    // Only that the call returns: any value meets it; a raise is "differs".
    let r = point(Value::Null, Answer::Value(json!({"baz": 1})), true);
    assert!(r.meets(&json!({"baz": 1}), false));
    assert!(kinds(&one(r)).is_empty());
    let r = point(
        Value::Null,
        Answer::Raised("JsonPatchTestFailed".into()),
        true,
    );
    let f2 = one(r);
    assert_eq!(kinds(&f2), vec!["differs"]);
    assert!(judge(&f2)[0].words().contains("it to return"));
    // A round trip's argument shows as the call made first.
    assert_eq!(
        call_text(
            "h.decodeHex",
            &[json!({"$call": "encodeHex", "$args": ["ab"]})]
        ),
        "h.decodeHex(encodeHex(\"ab\"))"
    );
}
