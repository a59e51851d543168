//! The two backends behind one small SQL interface: SQLite (rusqlite, the embedded default) and
//! PostgreSQL (the sync `postgres` client, for a store shared by a fleet of runs).
//!
//! Every method of the store is written once, in portable SQL, against [`Db`]: the interface
//! mirrors the part of rusqlite the store used (`execute`, `query_row`, `prepare` + `query_map`,
//! rows read by index into typed values), so the SQL and the row mappers stay as they were.
//! What is portable (both backends run it unchanged):
//!
//! - placeholders `?1`, `?2`, … (rewritten to `$1`, `$2` for PostgreSQL, outside string literals);
//! - `INSERT … RETURNING rowid` for the key of a new row ([`Db::insert`]); every table has a
//!   `rowid` on both backends (SQLite's own; on PostgreSQL a column the migration adds, see
//!   [`pg_ddl`]);
//! - `ON CONFLICT (…) DO UPDATE SET … excluded.…`, `IS NOT DISTINCT FROM`, `COALESCE`, `1 = 1`;
//! - integers are 64-bit, reals are doubles, text is text: a `SUM` of integers is `NUMERIC` on
//!   PostgreSQL, so it is written `CAST(SUM(…) AS BIGINT)` (a column of another type is an
//!   error naming it, never a guess);
//! - no SQLite functions (`json_set`, `json_extract`, …), no `PRAGMA` outside this module.
//!
//! Write transactions ([`Db::begin_write`]) hold the database's one write lock on both backends:
//! SQLite's `BEGIN IMMEDIATE`, and on PostgreSQL a transaction-scoped advisory lock keyed by the
//! schema. Writers are serialized exactly as on SQLite, so the rules checked inside a write (one
//! open run per clone, the next sequence number, a fleet's budget) hold without retries, and
//! events commit in the order of their sequence numbers (a reader following `seq > last` never
//! misses one committed late).
//!
//! Not here: what the SQL says (the modules beside this one), the migrations' content.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use rusqlite::types::Value;

/// Where a store lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (`.pawl/pawl.db`).
    File(PathBuf),
    /// A PostgreSQL connection URL (`postgres://user@host:port/db`, with `?options=-csearch_path%3D…`
    /// for a schema of its own).
    Postgres(String),
}

impl Location {
    /// `postgres://…` / `postgresql://…` is a server; anything else a file path.
    pub fn parse(text: &str) -> Location {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Location::Postgres(text.to_string())
        } else {
            Location::File(PathBuf::from(text))
        }
    }

    /// How messages name it: the path, or the URL without its password.
    pub fn display(&self) -> PathBuf {
        match self {
            Location::File(p) => p.clone(),
            Location::Postgres(url) => PathBuf::from(redact(url)),
        }
    }

    pub fn is_shared(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }
}

/// A URL with any password replaced by `***`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth, host) = match rest.split_once('@') {
        Some((a, h)) => (a, h),
        None => return url.to_string(),
    };
    match auth.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

/// An error of either backend, or a value of the wrong type.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{}", pg_message(.0))]
    Postgres(#[from] postgres::Error),
    #[error("query returned no rows")]
    NoRows,
    #[error("{0}")]
    Conversion(String),
}

fn pg_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => e.to_string(),
    }
}

impl DbError {
    /// A mapper's error for a column it cannot read.
    pub fn column(column: &str, what: impl std::fmt::Display) -> DbError {
        DbError::Conversion(format!("column {column}: {what}"))
    }
}

pub type DbResult<T> = std::result::Result<T, DbError>;

/// `.optional()` on a single-row result: no row is `None`.
pub trait OptionalExtension<T> {
    fn optional(self) -> DbResult<Option<T>>;
}

impl<T> OptionalExtension<T> for DbResult<T> {
    fn optional(self) -> DbResult<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(DbError::NoRows) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A value the SQL can take as a parameter.
pub trait ToValue {
    fn to_value(&self) -> Value;
}

macro_rules! int_to_value {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Value {
                Value::Integer(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}
int_to_value!(i64, i32, u32, u64, usize, u16, u8);

impl ToValue for f64 {
    fn to_value(&self) -> Value {
        Value::Real(*self)
    }
}
impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Integer(i64::from(*self))
    }
}
impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::Text(self.to_string())
    }
}
impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}
impl ToValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}
impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}
impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        match self {
            Some(v) => v.to_value(),
            None => Value::Null,
        }
    }
}

/// The parameters of one statement.
pub trait Params {
    fn values(self) -> Vec<Value>;
}

impl Params for () {
    fn values(self) -> Vec<Value> {
        Vec::new()
    }
}
impl Params for &[&dyn ToValue] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|v| v.to_value()).collect()
    }
}
impl<T: ToValue, const N: usize> Params for [T; N] {
    fn values(self) -> Vec<Value> {
        self.iter().map(ToValue::to_value).collect()
    }
}
impl<T: ToValue + ?Sized, const N: usize> Params for &[&T; N] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|v| v.to_value()).collect()
    }
}
impl Params for Vec<Value> {
    fn values(self) -> Vec<Value> {
        self
    }
}

/// `params![a, b, c]`: parameters of mixed types.
#[macro_export]
macro_rules! params {
    () => { () };
    ($($p:expr),+ $(,)?) => {
        &[$(&$p as &dyn $crate::db::ToValue),+] as &[&dyn $crate::db::ToValue]
    };
}
pub use crate::params;

/// A value read from a row.
pub trait FromValue: Sized {
    fn from_value(v: Value) -> DbResult<Self>;
}

fn wrong(v: &Value, want: &str) -> DbError {
    DbError::Conversion(format!("expected {want}, found {}", kind(v)))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "NULL",
        Value::Integer(_) => "an integer",
        Value::Real(_) => "a real",
        Value::Text(_) => "text",
        Value::Blob(_) => "a blob",
    }
}

impl FromValue for i64 {
    fn from_value(v: Value) -> DbResult<i64> {
        match v {
            Value::Integer(n) => Ok(n),
            v => Err(wrong(&v, "an integer")),
        }
    }
}
macro_rules! int_from_value {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value) -> DbResult<$t> {
                let n = i64::from_value(v)?;
                <$t>::try_from(n).map_err(|_| DbError::Conversion(format!("{n} is out of range")))
            }
        }
    )*};
}
int_from_value!(i32, u32, u64, usize, u16, u8);

impl FromValue for f64 {
    fn from_value(v: Value) -> DbResult<f64> {
        match v {
            Value::Real(f) => Ok(f),
            #[expect(
                clippy::cast_precision_loss,
                reason = "SQLite stores whole reals as integers"
            )]
            Value::Integer(n) => Ok(n as f64),
            v => Err(wrong(&v, "a real")),
        }
    }
}
impl FromValue for bool {
    fn from_value(v: Value) -> DbResult<bool> {
        Ok(i64::from_value(v)? != 0)
    }
}
impl FromValue for String {
    fn from_value(v: Value) -> DbResult<String> {
        match v {
            Value::Text(s) => Ok(s),
            v => Err(wrong(&v, "text")),
        }
    }
}
impl FromValue for Vec<u8> {
    fn from_value(v: Value) -> DbResult<Vec<u8>> {
        match v {
            Value::Blob(b) => Ok(b),
            v => Err(wrong(&v, "a blob")),
        }
    }
}
impl FromValue for Value {
    fn from_value(v: Value) -> DbResult<Value> {
        Ok(v)
    }
}
impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: Value) -> DbResult<Option<T>> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// A column index (`r.get::<_, T>(0)`, as with rusqlite).
pub trait RowIndex {
    fn index(&self) -> usize;
}
impl RowIndex for usize {
    fn index(&self) -> usize {
        *self
    }
}

/// One row, read out of the backend.
#[derive(Debug, Clone)]
pub struct Row {
    values: Vec<Value>,
}

impl Row {
    pub fn get<I: RowIndex, T: FromValue>(&self, i: I) -> DbResult<T> {
        let i = i.index();
        let v = self
            .values
            .get(i)
            .cloned()
            .ok_or_else(|| DbError::Conversion(format!("no column {i}")))?;
        T::from_value(v).map_err(|e| DbError::Conversion(format!("column {i}: {e}")))
    }
}

/// A connection to either backend.
pub struct Db {
    inner: Inner,
    /// Inside a transaction this connection began (PostgreSQL's client does not say).
    in_tx: std::cell::Cell<bool>,
}

/// Reads of several statements from one snapshot of the database; ends when dropped.
pub struct Snapshot<'a> {
    db: &'a Db,
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        let _ = self.db.rollback();
    }
}

enum Inner {
    Lite(rusqlite::Connection),
    Pg(Box<Pg>),
}

struct Pg {
    client: RefCell<postgres::Client>,
    /// Prepared statements by SQL text (PostgreSQL prepares each once per connection).
    statements: RefCell<HashMap<String, postgres::Statement>>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_postgres() {
            "Db(postgres)"
        } else {
            "Db(sqlite)"
        })
    }
}

/// A statement to run (see [`Db::prepare`]).
pub struct Stmt<'a> {
    db: &'a Db,
    sql: String,
}

impl Stmt<'_> {
    pub fn query_row<T>(
        &mut self,
        params: impl Params,
        f: impl FnOnce(&Row) -> DbResult<T>,
    ) -> DbResult<T> {
        self.db.query_row(&self.sql, params, f)
    }

    pub fn query_map<T>(
        &mut self,
        params: impl Params,
        mut f: impl FnMut(&Row) -> DbResult<T>,
    ) -> DbResult<std::vec::IntoIter<DbResult<T>>> {
        let rows = self.db.rows(&self.sql, params.values())?;
        Ok(rows.iter().map(&mut f).collect::<Vec<_>>().into_iter())
    }
}

/// A value SQLite hands out, owned. A text that is not UTF-8 (pawl writes none: only a hand on
/// the file can) is read with its bad bytes replaced — then a signed row's code does not verify
/// and the row is a finding, where rusqlite's own conversion panics.
fn owned(v: rusqlite::types::ValueRef<'_>) -> Value {
    match v {
        rusqlite::types::ValueRef::Text(s) => Value::Text(String::from_utf8_lossy(s).into_owned()),
        other => other.into(),
    }
}

impl Db {
    /// Opens a SQLite file.
    pub fn sqlite(path: &Path) -> DbResult<Db> {
        Ok(Db {
            inner: Inner::Lite(rusqlite::Connection::open(path)?),
            in_tx: std::cell::Cell::new(false),
        })
    }

    /// Connects to a PostgreSQL server.
    pub fn postgres(url: &str) -> DbResult<Db> {
        let client = postgres::Client::connect(url, postgres::NoTls)?;
        Ok(Db {
            inner: Inner::Pg(Box::new(Pg {
                client: RefCell::new(client),
                statements: RefCell::new(HashMap::new()),
            })),
            in_tx: std::cell::Cell::new(false),
        })
    }

    /// Opens the store at `location` (no migration: the store does that).
    pub fn open(location: &Location) -> DbResult<Db> {
        match location {
            Location::File(p) => Db::sqlite(p),
            Location::Postgres(url) => Db::postgres(url),
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self.inner, Inner::Pg(_))
    }

    /// The SQLite connection (the store's SQLite-only settings).
    pub(crate) fn sqlite_conn(&self) -> Option<&rusqlite::Connection> {
        match &self.inner {
            Inner::Lite(c) => Some(c),
            Inner::Pg(_) => None,
        }
    }

    pub fn execute(&self, sql: &str, params: impl Params) -> DbResult<usize> {
        let values = params.values();
        match &self.inner {
            Inner::Lite(c) => Ok(c
                .prepare_cached(sql)?
                .execute(rusqlite::params_from_iter(values))?),
            Inner::Pg(pg) => {
                let stmt = self.pg_statement(sql)?;
                let args = pg_args(&values);
                let n = pg.client.borrow_mut().execute(&stmt, &pg_refs(&args))?;
                Ok(usize::try_from(n).unwrap_or(usize::MAX))
            }
        }
    }

    /// Runs an `INSERT` and returns the new row's `rowid` (the statement gets `RETURNING rowid`).
    pub fn insert(&self, sql: &str, params: impl Params) -> DbResult<i64> {
        self.query_row(&format!("{sql} RETURNING rowid"), params, |r| r.get(0))
    }

    /// Several statements without parameters (migrations).
    pub fn execute_batch(&self, sql: &str) -> DbResult<()> {
        match &self.inner {
            Inner::Lite(c) => Ok(c.execute_batch(sql)?),
            Inner::Pg(pg) => Ok(pg.client.borrow_mut().batch_execute(sql)?),
        }
    }

    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        f: impl FnOnce(&Row) -> DbResult<T>,
    ) -> DbResult<T> {
        let rows = self.rows(sql, params.values())?;
        match rows.first() {
            Some(r) => f(r),
            None => Err(DbError::NoRows),
        }
    }

    /// Every row's values, owned (no copy of each value as [`Row::get`] makes).
    pub(crate) fn query_values(&self, sql: &str, params: impl Params) -> DbResult<Vec<Vec<Value>>> {
        Ok(self
            .rows(sql, params.values())?
            .into_iter()
            .map(|r| r.values)
            .collect())
    }

    pub fn prepare(&self, sql: &str) -> DbResult<Stmt<'_>> {
        Ok(Stmt {
            db: self,
            sql: sql.to_string(),
        })
    }

    pub fn prepare_cached(&self, sql: &str) -> DbResult<Stmt<'_>> {
        self.prepare(sql)
    }

    fn rows(&self, sql: &str, values: Vec<Value>) -> DbResult<Vec<Row>> {
        match &self.inner {
            Inner::Lite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let n = stmt.column_count();
                let mut out = Vec::new();
                let mut rows = stmt.query(rusqlite::params_from_iter(values))?;
                while let Some(r) = rows.next()? {
                    let mut vals = Vec::with_capacity(n);
                    for i in 0..n {
                        vals.push(owned(r.get_ref(i)?));
                    }
                    out.push(Row { values: vals });
                }
                Ok(out)
            }
            Inner::Pg(pg) => {
                let stmt = self.pg_statement(sql)?;
                let args = pg_args(&values);
                let rows = pg.client.borrow_mut().query(&stmt, &pg_refs(&args))?;
                rows.iter()
                    .map(|r| {
                        let mut vals = Vec::with_capacity(r.len());
                        for (i, col) in r.columns().iter().enumerate() {
                            vals.push(pg_value(r, i, col.type_(), col.name())?);
                        }
                        Ok(Row { values: vals })
                    })
                    .collect()
            }
        }
    }

    fn pg_statement(&self, sql: &str) -> DbResult<postgres::Statement> {
        let Inner::Pg(pg) = &self.inner else {
            return Err(DbError::Conversion("not a PostgreSQL connection".into()));
        };
        if let Some(s) = pg.statements.borrow().get(sql) {
            return Ok(s.clone());
        }
        let stmt = pg.client.borrow_mut().prepare(&pg_sql(sql))?;
        pg.statements
            .borrow_mut()
            .insert(sql.to_string(), stmt.clone());
        Ok(stmt)
    }

    /// Begins a write transaction holding the database's write lock (see the module's docs).
    pub fn begin_write(&self) -> DbResult<()> {
        self.begin_write_locked()?;
        self.in_tx.set(true);
        Ok(())
    }

    fn begin_write_locked(&self) -> DbResult<()> {
        match &self.inner {
            Inner::Lite(c) => Ok(c.execute_batch("BEGIN IMMEDIATE")?),
            Inner::Pg(pg) => {
                let mut c = pg.client.borrow_mut();
                c.batch_execute("BEGIN")?;
                if let Err(e) =
                    c.batch_execute("SELECT pg_advisory_xact_lock(hashtext(current_schema()))")
                {
                    let _ = c.batch_execute("ROLLBACK");
                    return Err(e.into());
                }
                Ok(())
            }
        }
    }

    pub fn commit(&self) -> DbResult<()> {
        self.in_tx.set(false);
        self.execute_batch("COMMIT")
    }

    pub fn rollback(&self) -> DbResult<()> {
        self.in_tx.set(false);
        self.execute_batch("ROLLBACK")
    }

    /// A read snapshot for the statements until it is dropped (SQLite: a deferred transaction,
    /// WAL keeps its first read's view; PostgreSQL: `REPEATABLE READ`); `None` inside a
    /// transaction already, which is one snapshot itself.
    pub fn snapshot(&self) -> DbResult<Option<Snapshot<'_>>> {
        let inside = match &self.inner {
            Inner::Lite(c) => !c.is_autocommit(),
            Inner::Pg(_) => self.in_tx.get(),
        };
        if inside {
            return Ok(None);
        }
        match &self.inner {
            Inner::Lite(c) => c.execute_batch("BEGIN DEFERRED")?,
            Inner::Pg(pg) => pg
                .client
                .borrow_mut()
                .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?,
        }
        self.in_tx.set(true);
        Ok(Some(Snapshot { db: self }))
    }

    /// A number that changes when another connection commits (SQLite's `data_version`); `None`
    /// where the backend has none (PostgreSQL: every check reads again).
    pub(crate) fn data_version(&self) -> DbResult<Option<i64>> {
        match &self.inner {
            // Prepared once per connection: a Stop asks before every check it may skip.
            Inner::Lite(c) => Ok(Some(
                c.prepare_cached("PRAGMA data_version")?
                    .query_row([], |r| r.get(0))?,
            )),
            Inner::Pg(_) => Ok(None),
        }
    }
}

/// `?N` placeholders as PostgreSQL's `$N`, outside quoted text.
pub fn pg_sql(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    for c in sql.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '?' => {
                out.push('$');
                continue;
            }
            None => {}
        }
        out.push(c);
    }
    out
}

/// A migration written for SQLite in PostgreSQL's dialect: `INTEGER` is 64-bit (`BIGINT`), `REAL`
/// a double, an `INTEGER PRIMARY KEY AUTOINCREMENT` an identity column, and every new table gets
/// the `rowid` SQLite gives it (the key itself where SQLite's rowid is an alias of it, else an
/// identity column of its own).
pub fn pg_ddl(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 256);
    let mut alias: Option<String> = None;
    let mut in_table = false;
    for line in sql.lines() {
        let code = line.split("--").next().unwrap_or("");
        let trimmed = code.trim();
        if trimmed.to_ascii_uppercase().starts_with("CREATE TABLE") {
            in_table = true;
            alias = None;
        }
        let mut l = line.to_string();
        if in_table && trimmed.contains("INTEGER PRIMARY KEY AUTOINCREMENT") {
            alias = trimmed.split_whitespace().next().map(str::to_string);
            l = l.replace(
                "INTEGER PRIMARY KEY AUTOINCREMENT",
                "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
            );
        }
        if in_table && trimmed.starts_with(");") {
            let rowid = match &alias {
                Some(col) => {
                    format!("    , rowid BIGINT GENERATED ALWAYS AS ({col}) STORED UNIQUE")
                }
                None => "    , rowid BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE".to_string(),
            };
            out.push_str(&rowid);
            out.push('\n');
            in_table = false;
        }
        out.push_str(&types_for_pg(&l));
        out.push('\n');
    }
    out
}

/// Whole-word `INTEGER` → `BIGINT`, `REAL` → `DOUBLE PRECISION` (code, not comments).
fn types_for_pg(line: &str) -> String {
    let (code, comment) = match line.find("--") {
        Some(i) => line.split_at(i),
        None => (line, ""),
    };
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match word.as_str() {
            "INTEGER" => out.push_str("BIGINT"),
            "REAL" => out.push_str("DOUBLE PRECISION"),
            w => out.push_str(w),
        }
        word.clear();
    };
    for c in code.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out.push_str(comment);
    out
}

/// A parameter for PostgreSQL, converted to the type the server expects for it.
#[derive(Debug)]
struct PgArg(Value);

fn pg_args(values: &[Value]) -> Vec<PgArg> {
    values.iter().cloned().map(PgArg).collect()
}

fn pg_refs(args: &[PgArg]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    args.iter()
        .map(|a| a as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

impl postgres::types::ToSql for PgArg {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use postgres::types::Type;
        let mismatch = || -> Box<dyn std::error::Error + Sync + Send> {
            format!("cannot store {} in a column of type {ty}", kind(&self.0)).into()
        };
        match &self.0 {
            Value::Null => Ok(postgres::types::IsNull::Yes),
            Value::Integer(n) => match *ty {
                Type::INT8 => n.to_sql(ty, out),
                Type::INT4 => i32::try_from(*n)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*n)?.to_sql(ty, out),
                #[expect(clippy::cast_precision_loss, reason = "an integer given for a real")]
                Type::FLOAT8 => (*n as f64).to_sql(ty, out),
                Type::BOOL => (*n != 0).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR | Type::UNKNOWN => n.to_string().to_sql(ty, out),
                _ => Err(mismatch()),
            },
            Value::Real(f) => match *ty {
                Type::FLOAT8 => f.to_sql(ty, out),
                Type::TEXT | Type::VARCHAR | Type::UNKNOWN => f.to_string().to_sql(ty, out),
                _ => Err(mismatch()),
            },
            Value::Text(s) => match *ty {
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                    s.as_str().to_sql(ty, out)
                }
                _ => Err(mismatch()),
            },
            Value::Blob(b) => match *ty {
                Type::BYTEA => b.as_slice().to_sql(ty, out),
                _ => Err(mismatch()),
            },
        }
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// A PostgreSQL column as a [`Value`]: integers, doubles, text, bytes; another type is an error
/// naming the column (write `CAST(… AS BIGINT)` for a sum of integers).
fn pg_value(
    r: &postgres::Row,
    i: usize,
    ty: &postgres::types::Type,
    name: &str,
) -> DbResult<Value> {
    use postgres::types::Type;
    let v = match *ty {
        Type::INT8 => r.try_get::<_, Option<i64>>(i)?.map(Value::Integer),
        Type::INT4 => r
            .try_get::<_, Option<i32>>(i)?
            .map(|n| Value::Integer(n.into())),
        Type::INT2 => r
            .try_get::<_, Option<i16>>(i)?
            .map(|n| Value::Integer(n.into())),
        Type::BOOL => r
            .try_get::<_, Option<bool>>(i)?
            .map(|b| Value::Integer(b.into())),
        Type::FLOAT8 => r.try_get::<_, Option<f64>>(i)?.map(Value::Real),
        Type::FLOAT4 => r
            .try_get::<_, Option<f32>>(i)?
            .map(|f| Value::Real(f.into())),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => {
            r.try_get::<_, Option<String>>(i)?.map(Value::Text)
        }
        Type::BYTEA => r.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Blob),
        _ => {
            return Err(DbError::Conversion(format!(
                "column {name} has the PostgreSQL type {ty}, which the store does not read (cast it AS BIGINT, DOUBLE PRECISION or TEXT)"
            )));
        }
    };
    Ok(v.unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_rewritten_outside_quotes() {
        assert_eq!(
            pg_sql("SELECT '?1' FROM t WHERE a = ?1 AND b = ?12"),
            "SELECT '?1' FROM t WHERE a = $1 AND b = $12"
        );
    }

    #[test]
    fn ddl_is_translated_with_a_rowid_per_table() {
        let sql = "CREATE TABLE e (\n    seq INTEGER PRIMARY KEY AUTOINCREMENT,\n    cost REAL NOT NULL -- REAL dollars\n);\nCREATE TABLE r (\n    id TEXT PRIMARY KEY,\n    n INTEGER\n);\nALTER TABLE r ADD COLUMN m INTEGER;\n";
        let pg = pg_ddl(sql);
        assert!(
            pg.contains("seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
            "{pg}"
        );
        assert!(
            pg.contains("cost DOUBLE PRECISION NOT NULL -- REAL dollars"),
            "{pg}"
        );
        assert!(
            pg.contains("rowid BIGINT GENERATED ALWAYS AS (seq) STORED UNIQUE"),
            "{pg}"
        );
        assert!(
            pg.contains("n BIGINT\n    , rowid BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE\n);"),
            "{pg}"
        );
        assert!(pg.contains("ADD COLUMN m BIGINT;"), "{pg}");
    }

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
    }
}
