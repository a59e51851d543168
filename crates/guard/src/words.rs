//! Static expansion of one shell word: quotes removed, escapes and ANSI-C
//! strings decoded, brace expansion applied, variables replaced when their
//! value is statically known. Whatever cannot be known (command
//! substitution, unknown variables, arithmetic) makes the word *unknown*,
//! and the command substitutions found are handed back so the caller can
//! analyse them as scripts of their own.
//!
//! This is not a shell: it never runs anything and never reads the
//! environment; variable values come from the caller.

use crate::balance::{Mode, scan};
use brush_parser::word::{
    BraceExpressionMember, BraceExpressionOrText, Parameter, ParameterExpr, ParameterTestType,
    ParameterTransformOp, SpecialParameter, TildeExpr, WordPiece, WordPieceWithSource,
};

/// The value the guard uses for parameters that always expand to a number (`$$`, `$?`, `$#`):
/// which digits they hold never matters to a rule, only that they hold no `/`, space or code.
pub(crate) const SOME_NUMBER: &str = "4242";

/// The value the guard uses for the output of a command known to print one word without `/`,
/// space or glob character (`$(date +%s)`, `$(whoami)`): as part of a path it keeps the path in
/// its directory. A command name holding it is not statically known.
pub(crate) const SLASH_FREE: &str = "pawl-output";

/// Most words a brace expansion may produce before the word is treated as
/// unknown; bounds work on inputs such as `{1..999999999}`.
const MAX_BRACE_WORDS: usize = 64;
/// Most `{` in one word handed to the brace-expansion parser.
const MAX_BRACES: usize = 4;
/// Longest word handed to the brace-expansion parser.
const MAX_BRACE_WORD_LEN: usize = 256;

/// One argument after expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arg {
    /// The value when known; otherwise the word as written, for messages.
    pub text: String,
    /// The value is statically known.
    pub known: bool,
    /// The value contains unquoted glob characters (`*`, `?`, `[`).
    pub glob: bool,
}

impl Arg {
    /// A known, literal argument.
    pub(crate) fn lit(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            known: true,
            glob: false,
        }
    }

    /// An argument whose value cannot be known, shown as `shown`.
    pub(crate) fn unknown(shown: impl Into<String>) -> Self {
        Self {
            text: shown.into(),
            known: false,
            glob: false,
        }
    }

    /// The value when it is known and free of globs.
    pub(crate) fn exact(&self) -> Option<&str> {
        (self.known && !self.glob).then_some(self.text.as_str())
    }

    /// Whether the value is known and equal to `s`.
    pub(crate) fn is(&self, s: &str) -> bool {
        self.exact() == Some(s)
    }
}

/// Quotes an argument so that re-parsing it yields the same argument;
/// unknown arguments become a reference to a variable nobody sets, which
/// the walker treats as unknown.
pub(crate) fn quote(arg: &Arg) -> String {
    if !arg.known {
        return "\"${__PAWL_UNKNOWN__}\"".to_owned();
    }
    if arg.glob {
        // Keep glob characters active, quote the rest.
        let mut out = String::new();
        for c in arg.text.chars() {
            if c.is_ascii_alphanumeric() || "*?[]/._-+=,:@%^".contains(c) {
                out.push(c);
            } else {
                out.push('\\');
                out.push(c);
            }
        }
        return out;
    }
    format!("'{}'", arg.text.replace('\'', r"'\''"))
}

/// What the walker needs from its scope to expand a word.
pub(crate) trait Scope {
    /// The value of a variable when statically known.
    fn var(&self, name: &str) -> Option<String>;
    /// `$HOME`, when known.
    fn home(&self) -> Option<String>;
    /// Whether bash evaluating the variable as arithmetic (or as a prompt)
    /// might run code: its value was set to something unknown, or contains
    /// a command substitution, directly or through the variables it names.
    fn risky(&self, _name: &str) -> bool {
        false
    }
    /// Whether `IFS` was changed, so unquoted expansions split unpredictably.
    fn ifs_changed(&self) -> bool {
        false
    }
    /// The glob pattern a variable stands for (`for f in src/*.rs`): each
    /// value is one path matching it.
    fn glob_var(&self, _name: &str) -> Option<String> {
        None
    }
    /// Whether the variable is surely unset (`${TMPDIR:-/tmp}` is then `/tmp`).
    fn unset(&self, _name: &str) -> bool {
        false
    }
    /// The output of the command substitution `script` when the scope knows it (`$(pwd)`).
    fn substitution(&self, _script: &str) -> Option<String> {
        None
    }
    /// Whether the variable's value comes from the environment the command inherits (the
    /// user's or CI's, not the agent's: the input never assigns it, sources nothing, reads
    /// nothing into variables) and the word being expanded is an argument, not a command name.
    /// Such a value is a plausible name, not a crafted `../..`: inside double quotes after a
    /// literal directory (`"build/$OUT"`) it names something under that directory, and the
    /// word is judged as the directory itself, the most it can reach (see [`Acc::cut`]).
    fn inherited(&self, _name: &str) -> bool {
        false
    }
}

/// Variables whose inherited value is no plausible name under a directory: the last argument
/// of the previous command (`$_`, set by the input itself), the previous directory, the
/// search paths, the field separator and the startup files.
pub(crate) const NOT_NAMES: &[&str] = &[
    "_",
    "OLDPWD",
    "CDPATH",
    "PATH",
    "IFS",
    "BASH_ENV",
    "ENV",
    "PS4",
    "PROMPT_COMMAND",
];

/// The variable a parameter expansion reads whole or with a prefix or suffix pattern removed
/// (`$X`, `${X}`, `${X#v}`, `${X%/}`): a part of the inherited value, never text it adds.
fn plain_or_trimmed(expr: &ParameterExpr) -> Option<&str> {
    match expr {
        ParameterExpr::Parameter {
            parameter: Parameter::Named(name),
            indirect: false,
        }
        | ParameterExpr::RemoveSmallestSuffixPattern {
            parameter: Parameter::Named(name),
            indirect: false,
            ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter: Parameter::Named(name),
            indirect: false,
            ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter: Parameter::Named(name),
            indirect: false,
            ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter: Parameter::Named(name),
            indirect: false,
            ..
        } => (!NOT_NAMES.contains(&name.as_str())).then_some(name.as_str()),
        _ => None,
    }
}

/// Whether `text` (a variable's value) holds code that an evaluation of it
/// (arithmetic, `${x@P}`, `PS4`) would run.
pub(crate) fn has_code(text: &str) -> bool {
    text.contains("$(") || text.contains('`')
}

/// The shell names (identifiers) mentioned in an arithmetic expression:
/// bash evaluates each as arithmetic in turn.
pub(crate) fn identifiers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            // `0x1f`, `16#ff`: digits with letters are numbers, not names.
            let after_digit =
                start > 0 && (bytes[start - 1].is_ascii_digit() || bytes[start - 1] == b'#');
            if !after_digit && out.len() < 64 {
                out.push(&text[start..i]);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The result of expanding one word.
#[derive(Debug, Default)]
pub(crate) struct Expanded {
    /// Fields after brace expansion and word splitting of known values.
    pub args: Vec<Arg>,
    /// Command substitutions (`$(...)`, backticks) met, as script text.
    pub substitutions: Vec<String>,
    /// Whether the word failed to parse.
    pub malformed: bool,
    /// Why the word may run code the guard cannot see (`${x@P}` of an
    /// unknown value, arithmetic on a variable holding `$(...)`).
    pub opaque: Option<String>,
    /// Variables the word assigns (`${a:=x}`, `${a=x}`).
    pub assigned: Vec<String>,
}

/// Most `$((` openers in one text handed to brush-parser's word grammar,
/// and most `$(` openers: unclosed ones make it backtrack exponentially
/// (found by fuzzing). More than that is refused as malformed.
const MAX_ARITH_OPENERS: usize = 8;
const MAX_SUBST_OPENERS: usize = 32;

fn too_complex(text: &str, mode: Mode) -> bool {
    // Expansions or quotes left open are what make the grammar backtrack
    // (every fuzz-found timeout was one); balanced ones are cheap, but
    // bound how many a single text may hold all the same.
    scan(text, mode).is_err()
        || text.matches("$((").count() > MAX_ARITH_OPENERS
        || text.matches("$(").count() > MAX_SUBST_OPENERS
}

fn options() -> brush_parser::ParserOptions {
    brush_parser::ParserOptions::default()
}

/// Expands `raw` (a word as the parser returned it, quotes included).
pub(crate) fn expand(raw: &str, scope: &dyn Scope) -> Expanded {
    let mut out = Expanded::default();
    for alternative in brace_alternatives(raw) {
        match alternative {
            Some(text) => expand_one(&text, scope, &mut out),
            None => out.args.push(Arg::unknown(raw)),
        }
    }
    out
}

/// Expands a here-document body that undergoes expansion: only the
/// substitutions matter (the body is data), so just collect them.
pub(crate) fn heredoc_substitutions(body: &str) -> (Vec<String>, bool) {
    if too_complex(body, Mode::HereDoc) {
        return (Vec::new(), true);
    }
    match brush_parser::word::parse_heredoc(body, &options()) {
        Ok(pieces) => {
            let mut subs = Vec::new();
            collect_substitutions(&pieces, &mut subs);
            let prompt = pieces_have_prompt_expansion(&pieces);
            (subs, prompt)
        }
        Err(_) => (Vec::new(), true),
    }
}

/// Whether `${x@P}` (prompt expansion, which runs substitutions in the
/// value) appears among `pieces`.
fn pieces_have_prompt_expansion(pieces: &[WordPieceWithSource]) -> bool {
    pieces.iter().any(|piece| match &piece.piece {
        WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
            pieces_have_prompt_expansion(inner)
        }
        WordPiece::ParameterExpansion(ParameterExpr::Transform {
            op: ParameterTransformOp::PromptExpand,
            ..
        }) => true,
        _ => false,
    })
}

fn collect_substitutions(pieces: &[WordPieceWithSource], subs: &mut Vec<String>) {
    for piece in pieces {
        match &piece.piece {
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                subs.push(s.clone());
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => collect_substitutions(inner, subs),
            WordPiece::ParameterExpansion(expr) => param_substitutions(expr, subs),
            WordPiece::ArithmeticExpression(expr) => {
                subs.extend(nested_substitutions(&expr.value));
            }
            _ => {}
        }
    }
}

/// The parameter an expansion reads, when it names one.
fn expr_parameter(expr: &ParameterExpr) -> Option<&Parameter> {
    match expr {
        ParameterExpr::Parameter { parameter, .. }
        | ParameterExpr::UseDefaultValues { parameter, .. }
        | ParameterExpr::AssignDefaultValues { parameter, .. }
        | ParameterExpr::IndicateErrorIfNullOrUnset { parameter, .. }
        | ParameterExpr::UseAlternativeValue { parameter, .. }
        | ParameterExpr::ParameterLength { parameter, .. }
        | ParameterExpr::RemoveSmallestSuffixPattern { parameter, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { parameter, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { parameter, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { parameter, .. }
        | ParameterExpr::Substring { parameter, .. }
        | ParameterExpr::Transform { parameter, .. }
        | ParameterExpr::UppercaseFirstChar { parameter, .. }
        | ParameterExpr::UppercasePattern { parameter, .. }
        | ParameterExpr::LowercaseFirstChar { parameter, .. }
        | ParameterExpr::LowercasePattern { parameter, .. }
        | ParameterExpr::ReplaceSubstring { parameter, .. } => Some(parameter),
        ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => None,
    }
}

/// The texts of every part of a parameter expansion that is expanded
/// (defaults, patterns, replacements, offsets, subscripts), and of those the
/// ones evaluated as arithmetic.
fn expr_parts(expr: &ParameterExpr) -> (Vec<&str>, Vec<&str>) {
    let mut texts: Vec<&str> = Vec::new();
    let mut arith: Vec<&str> = Vec::new();
    if let Some(Parameter::NamedWithIndex { index, .. }) = expr_parameter(expr) {
        texts.push(index);
        arith.push(index);
    }
    match expr {
        ParameterExpr::UseDefaultValues {
            default_value: t, ..
        }
        | ParameterExpr::AssignDefaultValues {
            default_value: t, ..
        }
        | ParameterExpr::IndicateErrorIfNullOrUnset {
            error_message: t, ..
        }
        | ParameterExpr::UseAlternativeValue {
            alternative_value: t,
            ..
        }
        | ParameterExpr::RemoveSmallestSuffixPattern { pattern: t, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { pattern: t, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { pattern: t, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { pattern: t, .. }
        | ParameterExpr::UppercaseFirstChar { pattern: t, .. }
        | ParameterExpr::UppercasePattern { pattern: t, .. }
        | ParameterExpr::LowercaseFirstChar { pattern: t, .. }
        | ParameterExpr::LowercasePattern { pattern: t, .. } => texts.extend(t.as_deref()),
        ParameterExpr::ReplaceSubstring {
            pattern,
            replacement,
            ..
        } => {
            texts.push(pattern);
            texts.extend(replacement.as_deref());
        }
        ParameterExpr::Substring { offset, length, .. } => {
            texts.push(&offset.value);
            arith.push(&offset.value);
            if let Some(length) = length {
                texts.push(&length.value);
                arith.push(&length.value);
            }
        }
        _ => {}
    }
    (texts, arith)
}

/// Substitutions hidden in any part of `${X:-$(cmd)}`, `${X#$(cmd)}`,
/// `${X/$(a)/$(b)}`, `${X:$(cmd)}`, `${a[$(cmd)]}`.
fn param_substitutions(expr: &ParameterExpr, subs: &mut Vec<String>) {
    for text in expr_parts(expr).0 {
        subs.extend(nested_substitutions(text));
    }
}

/// What a parameter expansion may do beyond reading a value: assign
/// (`${a:=x}`), evaluate arithmetic on variables, or prompt-expand a value.
fn param_effects(expr: &ParameterExpr, scope: &dyn Scope, out: &mut Expanded) {
    if let ParameterExpr::AssignDefaultValues {
        parameter:
            Parameter::Named(name)
            | Parameter::NamedWithIndex { name, .. }
            | Parameter::NamedWithAllIndices { name, .. },
        ..
    } = expr
    {
        out.assigned.push(name.clone());
    }
    for text in expr_parts(expr).1 {
        arithmetic_effects(text, scope, out);
    }
    if let ParameterExpr::Transform {
        parameter,
        op: ParameterTransformOp::PromptExpand,
        ..
    } = expr
    {
        let known_safe = match parameter {
            Parameter::Named(name) => {
                !scope.risky(name) && scope.var(name).is_some_and(|v| !has_code(&v))
            }
            _ => false,
        };
        if !known_safe && out.opaque.is_none() {
            out.opaque = Some(format!(
                "`@P` prompt-expands `{parameter}`, whose value may hold a command substitution"
            ));
        }
    }
}

/// Arithmetic evaluates every variable it names, recursively, and runs
/// the substitutions in array subscripts of their values.
pub(crate) fn arithmetic_effects(text: &str, scope: &dyn Scope, out: &mut Expanded) {
    if out.opaque.is_some() {
        return;
    }
    for name in identifiers(text) {
        if scope.risky(name) {
            out.opaque = Some(format!(
                "arithmetic evaluates `{name}`, whose value is not statically known or holds a command substitution (an array subscript in it would run)"
            ));
            return;
        }
    }
}

fn nested_substitutions(text: &str) -> Vec<String> {
    if !text.contains('$') && !text.contains('`') {
        return Vec::new();
    }
    if too_complex(text, Mode::Word) {
        return vec![text.to_owned()];
    }
    match brush_parser::word::parse(text, &options()) {
        Ok(pieces) => {
            let mut subs = Vec::new();
            collect_substitutions(&pieces, &mut subs);
            subs
        }
        // Unparseable text that mentions `$(` is handed back whole so the
        // caller fails closed on it.
        Err(_) => vec![text.to_owned()],
    }
}

#[derive(Default)]
struct Acc {
    fields: Vec<Arg>,
    cur: Arg,
    /// The current field has received something (even an empty string).
    started: bool,
    /// The current field was cut at a literal directory followed by an inherited value
    /// (`"build/$OUT/x"` is `build/`): what follows is under that directory and not kept.
    cut: bool,
}

impl Default for Arg {
    fn default() -> Self {
        Self::lit("")
    }
}

impl Acc {
    /// Cuts the current field at its literal directory when an inherited value follows it:
    /// quoted (no splitting), the field so far known, free of globs, ending in `/`, and not a
    /// URL, a remote path or an option's address (`https://h/`, `host:dir/`, `user@h/`), where
    /// the value would be sent, not named.
    fn cut_at_directory(&mut self, quoted: bool) -> bool {
        let t = &self.cur.text;
        let fits = quoted
            && self.cur.known
            && !self.cur.glob
            && t.ends_with('/')
            && !t.contains([':', '@'])
            && !t.split('/').any(|c| c == "..");
        if fits {
            self.cut = true;
            self.started = true;
        }
        fits
    }

    /// In a cut field, what follows the inherited value must be more of a name (`/stdlib`,
    /// `.txt`): anything else (a space, `;`, a quote, a glob, code) could be more words or
    /// commands when the field is a script (`bash -c "echo d/$V; rm -rf ~"`), and the field is
    /// then unknown.
    fn after_cut(&mut self, s: &str) {
        if !s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._+-/,=%@".contains(c))
        {
            self.cur.known = false;
        }
    }

    fn push_lit(&mut self, s: &str, quoted: bool) {
        if self.cut {
            self.after_cut(s);
            return;
        }
        if !quoted && has_glob(s) {
            self.cur.glob = true;
        }
        self.cur.text.push_str(s);
        self.started = true;
    }

    fn push_unknown(&mut self, shown: &str) {
        if self.cut {
            self.cur.known = false;
            return;
        }
        self.cur.known = false;
        self.cur.text.push_str(shown);
        self.started = true;
    }

    /// A known expansion result: split on whitespace when unquoted.
    fn push_expanded(&mut self, value: &str, quoted: bool, ifs_changed: bool) {
        if self.cut {
            self.after_cut(value);
            return;
        }
        if !quoted && ifs_changed {
            // Split on an IFS the guard does not model.
            self.push_unknown(value);
            return;
        }
        if quoted {
            self.cur.text.push_str(value);
            self.started = true;
            return;
        }
        if has_glob(value) {
            self.cur.glob = true;
        }
        let mut pieces = value.split([' ', '\t', '\n']).peekable();
        let mut first = true;
        while let Some(piece) = pieces.next() {
            if !first {
                self.finish();
            }
            first = false;
            if !piece.is_empty() {
                self.cur.text.push_str(piece);
                self.started = true;
            }
            if pieces.peek().is_none() {
                break;
            }
        }
    }

    fn finish(&mut self) {
        if self.started || !self.cur.known {
            let field = std::mem::take(&mut self.cur);
            self.fields.push(field);
        }
        self.cur = Arg::default();
        self.started = false;
        self.cut = false;
    }
}

/// Whether unquoted text would be a glob pattern: `*`, `?`, or a `[`
/// closed by a later `]` (a lone `[` is the test command).
fn has_glob(s: &str) -> bool {
    if s.contains(['*', '?']) {
        return true;
    }
    s.find('[').is_some_and(|open| s[open + 1..].contains(']'))
}

fn expand_one(raw: &str, scope: &dyn Scope, out: &mut Expanded) {
    if too_complex(raw, Mode::Word) {
        out.malformed = true;
        out.args.push(Arg::unknown(raw));
        return;
    }
    match brush_parser::word::parse(raw, &options()) {
        Ok(pieces) => {
            let mut acc = Acc::default();
            pieces_into(raw, &pieces, false, scope, &mut acc, out);
            acc.finish();
            if acc.fields.is_empty() {
                // An unquoted expansion to nothing vanishes; keep the
                // field count stable for the rules by not adding one.
                return;
            }
            out.args.extend(acc.fields);
        }
        Err(_) => {
            out.malformed = true;
            out.args.push(Arg::unknown(raw));
        }
    }
}

fn shown<'r>(raw: &'r str, piece: &WordPieceWithSource) -> &'r str {
    raw.get(piece.start_index..piece.end_index).unwrap_or("?")
}

fn pieces_into(
    raw: &str,
    pieces: &[WordPieceWithSource],
    quoted: bool,
    scope: &dyn Scope,
    acc: &mut Acc,
    out: &mut Expanded,
) {
    for piece in pieces {
        match &piece.piece {
            WordPiece::Text(s) => acc.push_lit(s, quoted),
            WordPiece::SingleQuotedText(s) => acc.push_lit(s, true),
            WordPiece::AnsiCQuotedText(s) => acc.push_lit(&decode_ansi_c(s), true),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                acc.started = true;
                pieces_into(raw, inner, true, scope, acc, out);
            }
            WordPiece::EscapeSequence(s) => {
                let unescaped = s.strip_prefix('\\').unwrap_or(s);
                // A backslash-newline is a line continuation: it vanishes.
                if unescaped != "\n" {
                    acc.push_lit(unescaped, true);
                }
            }
            WordPiece::TildeExpansion(TildeExpr::Home) => match scope.home() {
                Some(home) => acc.push_lit(&home, true),
                None => acc.push_unknown("~"),
            },
            WordPiece::TildeExpansion(_) => acc.push_unknown(shown(raw, piece)),
            WordPiece::ParameterExpansion(expr) => {
                param_substitutions(expr, &mut out.substitutions);
                param_effects(expr, scope, out);
                let value = match expr {
                    // `$$`, `$?`, `$#`: digits.
                    ParameterExpr::Parameter {
                        parameter:
                            Parameter::Special(
                                SpecialParameter::ProcessId
                                | SpecialParameter::LastExitStatus
                                | SpecialParameter::PositionalParameterCount,
                            ),
                        indirect: false,
                    } => Some(SOME_NUMBER.to_owned()),
                    // `${X:-default}`: the value when it is set (and not empty), the default
                    // when it is surely unset or empty.
                    ParameterExpr::UseDefaultValues {
                        parameter: Parameter::Named(name),
                        indirect: false,
                        test_type,
                        default_value,
                    } if scope.glob_var(name).is_none() => {
                        let default = || known_text(default_value.as_deref().unwrap_or(""), scope);
                        match scope.var(name) {
                            Some(v)
                                if !v.is_empty()
                                    || matches!(test_type, ParameterTestType::Unset) =>
                            {
                                Some(v)
                            }
                            Some(_) => default(),
                            None if scope.unset(name) => default(),
                            None => None,
                        }
                    }
                    ParameterExpr::Parameter {
                        parameter: Parameter::Named(name),
                        indirect: false,
                    } => {
                        if let Some(pattern) = scope.glob_var(name) {
                            // One path matching the pattern: a glob field.
                            acc.push_lit(&pattern, false);
                            continue;
                        }
                        scope.var(name)
                    }
                    _ => None,
                };
                match value {
                    Some(v) => acc.push_expanded(&v, quoted, scope.ifs_changed()),
                    // Another inherited value after the cut is more of the same name.
                    None if acc.cut
                        && plain_or_trimmed(expr).is_some_and(|n| scope.inherited(n)) => {}
                    None if !acc.cut
                        && plain_or_trimmed(expr).is_some_and(|n| scope.inherited(n))
                        && acc.cut_at_directory(quoted) => {}
                    None => acc.push_unknown(shown(raw, piece)),
                }
            }
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                out.substitutions.push(s.clone());
                match scope.substitution(s).or_else(|| slash_free_output(s)) {
                    // Trailing newlines are removed from the output.
                    Some(v) => {
                        acc.push_expanded(v.trim_end_matches('\n'), quoted, scope.ifs_changed())
                    }
                    None => acc.push_unknown(shown(raw, piece)),
                }
            }
            WordPiece::ArithmeticExpression(expr) => {
                out.substitutions.extend(nested_substitutions(&expr.value));
                arithmetic_effects(&expr.value, scope, out);
                acc.push_unknown(shown(raw, piece));
            }
        }
    }
}

/// [`SLASH_FREE`] when `script` is a command that prints one word without `/`, whitespace or
/// glob characters: `date +FORMAT` with such a format, `whoami`, `hostname`, `uname [-smrn]`,
/// `nproc`, `id -u`, `git rev-parse [--short] HEAD`.
fn slash_free_output(script: &str) -> Option<String> {
    if script.contains([
        '$', '`', ';', '|', '&', '<', '>', '(', ')', '\'', '"', '\\', '\n',
    ]) {
        return None;
    }
    let words: Vec<&str> = script.split_ascii_whitespace().collect();
    let fits = match words.as_slice() {
        ["date", format] | ["date", "-u", format] => format.strip_prefix('+').is_some_and(|f| {
            let mut chars = f.chars();
            let mut ok = !f.is_empty();
            while let Some(c) = chars.next() {
                ok &= match c {
                    '%' => chars
                        .next()
                        .is_some_and(|d| "sYmdHMSFTjuVGgyIpsNz%".contains(d)),
                    c => c.is_ascii_alphanumeric() || "-_.:,+@=".contains(c),
                };
            }
            ok
        }),
        ["whoami"] | ["hostname"] | ["hostname", "-s"] | ["nproc"] => true,
        ["uname"] | ["uname", "-s" | "-m" | "-r" | "-n" | "-p"] => true,
        ["id", "-u" | "-g" | "-un" | "-gn" | "-ur"] => true,
        ["git", "rev-parse", "HEAD"] | ["git", "rev-parse", "--short", "HEAD"] => true,
        _ => false,
    };
    fits.then(|| SLASH_FREE.to_owned())
}

/// The value of the text of a parameter expansion's default (`${X:-text}`) when it is one
/// statically known string without substitutions; `None` otherwise.
fn known_text(raw: &str, scope: &dyn Scope) -> Option<String> {
    if raw.is_empty() {
        return Some(String::new());
    }
    if raw.contains(['$', '`']) {
        return None;
    }
    let mut out = Expanded::default();
    expand_one(&format!("\"{raw}\""), scope, &mut out);
    match out.args.as_slice() {
        [one] if one.known && out.substitutions.is_empty() && out.opaque.is_none() => {
            Some(one.text.clone())
        }
        _ => None,
    }
}

/// Brace-expands `raw` into raw alternatives; `None` entries stand for "too
/// many to enumerate". A word without an unquoted `{` is returned as is.
fn brace_alternatives(raw: &str) -> Vec<Option<String>> {
    if !raw.contains('{') || !(raw.contains(',') || raw.contains("..")) {
        return vec![Some(raw.to_owned())];
    }
    // brush-parser's brace grammar backtracks exponentially on many open
    // braces (found by fuzzing); such a word is treated as unknown.
    // It also panics on sequence bounds that overflow i64.
    let long_number = raw
        .split(|c: char| !c.is_ascii_digit())
        .any(|run| run.len() > 18);
    if raw.matches('{').count() > MAX_BRACES || raw.len() > MAX_BRACE_WORD_LEN || long_number {
        return vec![None];
    }
    match brush_parser::word::parse_brace_expansions(raw, &options()) {
        Ok(Some(pieces)) => match expand_brace_pieces(&pieces) {
            Some(words) => words.into_iter().map(Some).collect(),
            None => vec![None],
        },
        _ => vec![Some(raw.to_owned())],
    }
}

fn expand_brace_pieces(pieces: &[BraceExpressionOrText]) -> Option<Vec<String>> {
    let mut acc = vec![String::new()];
    for piece in pieces {
        let options: Vec<String> = match piece {
            BraceExpressionOrText::Text(t) => vec![t.clone()],
            BraceExpressionOrText::Expr(members) => {
                let mut all = Vec::new();
                for member in members {
                    all.extend(expand_member(member)?);
                    if all.len() > MAX_BRACE_WORDS {
                        return None;
                    }
                }
                all
            }
        };
        let mut next = Vec::new();
        for prefix in &acc {
            for option in &options {
                next.push(format!("{prefix}{option}"));
                if next.len() > MAX_BRACE_WORDS {
                    return None;
                }
            }
        }
        acc = next;
    }
    Some(acc)
}

fn expand_member(member: &BraceExpressionMember) -> Option<Vec<String>> {
    match member {
        BraceExpressionMember::Child(pieces) => expand_brace_pieces(pieces),
        BraceExpressionMember::NumberSequence {
            start,
            end,
            increment,
        } => {
            let step = increment.checked_abs().filter(|s| *s > 0).unwrap_or(1);
            let span = start.abs_diff(*end) / step.unsigned_abs();
            if span >= MAX_BRACE_WORDS as u64 {
                return None;
            }
            let mut out = Vec::new();
            let mut value = *start;
            loop {
                out.push(value.to_string());
                if value == *end {
                    break;
                }
                let next = if start <= end {
                    value.checked_add(step)
                } else {
                    value.checked_sub(step)
                }?;
                if (start <= end && next > *end) || (start > end && next < *end) {
                    break;
                }
                value = next;
            }
            Some(out)
        }
        BraceExpressionMember::CharSequence {
            start,
            end,
            increment,
        } => {
            let (a, b) = (u32::from(*start), u32::from(*end));
            let step = u32::try_from(increment.unsigned_abs()).unwrap_or(1).max(1);
            if a.abs_diff(b) / step >= MAX_BRACE_WORDS as u32 {
                return None;
            }
            let mut out = Vec::new();
            let (lo, hi) = (a.min(b), a.max(b));
            let mut v = lo;
            while v <= hi {
                out.extend(char::from_u32(v).map(String::from));
                v += step;
            }
            if a > b {
                out.reverse();
            }
            Some(out)
        }
    }
}

/// Decodes the body of a `$'...'` string.
pub(crate) fn decode_ansi_c(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(value & 0xff));
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value: u32 = 0;
                let mut digits = 0;
                while digits < max {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            value = value.saturating_mul(16).saturating_add(d);
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    out.push('\\');
                    out.push(e);
                } else {
                    out.extend(char::from_u32(value));
                }
            }
            'c' => {
                if let Some(ctl) = chars.next() {
                    out.extend(char::from_u32(u32::from(ctl) & 0x1f));
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Vars;
    impl Scope for Vars {
        fn var(&self, name: &str) -> Option<String> {
            match name {
                "X" => Some("rm".into()),
                "TWO" => Some("rm -rf".into()),
                _ => None,
            }
        }
        fn home(&self) -> Option<String> {
            Some("/home/dev".into())
        }
    }

    fn texts(raw: &str) -> Vec<(String, bool)> {
        expand(raw, &Vars)
            .args
            .into_iter()
            .map(|a| (a.text, a.known))
            .collect()
    }

    #[test]
    fn quotes_and_escapes_disappear() {
        assert_eq!(texts("r''m"), vec![("rm".into(), true)]);
        assert_eq!(texts("\\rm"), vec![("rm".into(), true)]);
        assert_eq!(texts("\"r\"m"), vec![("rm".into(), true)]);
        assert_eq!(texts("$'\\x72\\x6d'"), vec![("rm".into(), true)]);
        assert_eq!(texts("~/x"), vec![("/home/dev/x".into(), true)]);
    }

    #[test]
    fn variables_split_when_unquoted() {
        assert_eq!(
            texts("$TWO"),
            vec![("rm".into(), true), ("-rf".into(), true)]
        );
        assert_eq!(texts("\"$TWO\""), vec![("rm -rf".into(), true)]);
        assert_eq!(texts("$X"), vec![("rm".into(), true)]);
        assert_eq!(texts("$Y"), vec![("$Y".into(), false)]);
    }

    #[test]
    fn braces_expand_and_are_bounded() {
        assert_eq!(texts("{rm,-rf,src}").len(), 3);
        assert_eq!(texts("a{1..3}").len(), 3);
        assert_eq!(texts("{1..100000}"), vec![("{1..100000}".into(), false)]);
        assert_eq!(texts("stash@{1}"), vec![("stash@{1}".into(), true)]);
        // Regression: fuzzing found exponential time on many open braces.
        let many = format!("{}{}", "{".repeat(17), ",'push.run([&git'");
        assert!(!expand(&many, &Vars).args[0].known);
    }

    #[test]
    fn substitutions_are_collected() {
        let e = expand("\"$(echo rm)\"", &Vars);
        assert_eq!(e.substitutions, vec!["echo rm".to_owned()]);
        assert!(!e.args[0].known);
    }
}
