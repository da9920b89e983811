//! The parameter tables of the disciplines: one declaration per parameter gives the scenario's
//! override struct, the resolved struct, the defaults of every profile, the range check and
//! the machine-readable description ([`qdisc_schema`]).
//!
//! # Why a declarative macro
//! A discipline's parameters are written once, in [`params!`](crate::params): name, Rust type,
//! kind, range, doc and a default per profile. From that one table the macro generates a
//! `…Config` (every field optional, deserialized from the scenario with the user's names and
//! canonical units), a `…Params` (every field resolved, no fallback left) and the schema
//! entry. A table of constants would describe the parameters just as well, but the code that
//! runs would then have to read them back by name from a map; with the macro both structs are
//! ordinary typed Rust structs, so a misspelt or missing parameter is a compile error, and no
//! default can exist anywhere but in the table.
//!
//! # Canonical units at the boundary
//! Durations are integer nanoseconds, rates integer bit/s, sizes integer bytes, gains float Hz,
//! probabilities and weights floats, limits `{"packets": n}` or `{"bytes": n}`. Errors name the
//! user's field and give the accepted range in the units a user writes (`1us`, `10Mbps`, `1500B`).

use std::collections::BTreeMap;
use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::config::QueueLimit;

/// What a parameter is, for the scenario layer: its unit and how it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Integer nanoseconds.
    Duration,
    /// Integer bits per second.
    Rate,
    /// Integer bytes.
    Bytes,
    /// `{"packets": n}` or `{"bytes": n}`.
    Limit,
    Float,
    Int,
    Bool,
    /// One of the strings in `choices`.
    Choice,
    /// A nested queue table (`inner` names its discipline; none: any, with its `type`).
    Qdisc,
    IntList,
    StringList,
}

impl Kind {
    /// Kinds whose values and bounds are whole numbers.
    fn integral(self) -> bool {
        matches!(self, Kind::Duration | Kind::Rate | Kind::Bytes | Kind::Limit | Kind::Int | Kind::IntList)
    }

    /// A number of this kind as a user writes it.
    fn show(self, v: f64, unit: Option<&str>) -> String {
        match (self, unit) {
            (Kind::Duration, _) => fmt_duration(v as u64),
            (Kind::Rate, _) => fmt_rate(v as u64),
            (Kind::Bytes, _) => format!("{v}B"),
            (_, Some(u)) => format!("{v} {u}"),
            _ => format!("{v}"),
        }
    }
}

/// The largest unit that keeps the value an integer: `15ms`, `1500us`, `7ns`.
pub fn fmt_duration(ns: u64) -> String {
    for (unit, scale) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= scale && ns.is_multiple_of(scale) {
            return format!("{}{unit}", ns / scale);
        }
    }
    format!("{ns}ns")
}

/// The largest decimal unit that keeps the rate an integer: `10Mbps`, `1500kbps`.
pub fn fmt_rate(bps: u64) -> String {
    for (unit, scale) in [("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("kbps", 1_000)] {
        if bps >= scale && bps.is_multiple_of(scale) {
            return format!("{}{unit}", bps / scale);
        }
    }
    format!("{bps}bps")
}

/// The accepted values of a numeric parameter, in canonical units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub min_open: bool,
    pub max_open: bool,
    /// A closed set of accepted numbers instead of an interval.
    pub one_of: &'static [f64],
}

impl Range {
    /// No numeric constraint (booleans, choices, nested tables).
    pub const ANY: Range = Range { min: None, max: None, min_open: false, max_open: false, one_of: &[] };

    /// `[lo, hi]`.
    pub const fn closed(lo: f64, hi: f64) -> Range {
        Range { min: Some(lo), max: Some(hi), ..Range::ANY }
    }

    /// `(lo, hi]`.
    pub const fn above(lo: f64, hi: f64) -> Range {
        Range { min: Some(lo), max: Some(hi), min_open: true, ..Range::ANY }
    }

    /// `[lo, ∞)`.
    pub const fn at_least(lo: f64) -> Range {
        Range { min: Some(lo), ..Range::ANY }
    }

    /// Exactly one of `values`.
    pub const fn one_of(values: &'static [f64]) -> Range {
        Range { one_of: values, ..Range::ANY }
    }

    /// Finite and inside.
    pub fn contains(&self, v: f64) -> bool {
        if !v.is_finite() {
            return false;
        }
        if !self.one_of.is_empty() {
            return self.one_of.contains(&v);
        }
        let above_min = self.min.is_none_or(|lo| if self.min_open { v > lo } else { v >= lo });
        let below_max = self.max.is_none_or(|hi| if self.max_open { v < hi } else { v <= hi });
        above_min && below_max
    }

    fn show(&self, kind: Kind, unit: Option<&str>) -> String {
        let f = |v: f64| kind.show(v, unit);
        if !self.one_of.is_empty() {
            return format!("one of {}", self.one_of.iter().map(|&v| f(v)).collect::<Vec<_>>().join(", "));
        }
        match (self.min, self.max) {
            (Some(lo), Some(hi)) => format!("{}{}, {}{}", if self.min_open { "(" } else { "[" }, f(lo), f(hi), if self.max_open { ")" } else { "]" }),
            (Some(lo), None) => format!("{} {}", if self.min_open { "above" } else { "at least" }, f(lo)),
            (None, Some(hi)) => format!("{} {}", if self.max_open { "below" } else { "at most" }, f(hi)),
            (None, None) => "any value".into(),
        }
    }
}

/// A value a parameter can hold, as the range check sees it.
pub trait ParamValue: Clone + Debug + PartialEq + Serialize + DeserializeOwned {
    /// What a scenario gives: the value itself, or for an optional parameter (default unset)
    /// the value it is set to. Absent (or null) in the scenario means "the profile's default".
    type Given: Clone + Debug + PartialEq + Serialize + DeserializeOwned;
    fn from_given(g: Self::Given) -> Self;
    /// The value as a scenario would give it (none for an optional parameter left unset).
    fn into_given(self) -> Option<Self::Given>;
    /// The numbers the range applies to (each element of a list; none for booleans).
    fn numbers(&self) -> Vec<f64>;
    /// The accepted names, for choices.
    fn choices() -> Option<&'static [&'static str]> {
        None
    }
}

/// A value given as itself.
macro_rules! given_as_itself {
    () => {
        type Given = Self;
        fn from_given(g: Self) -> Self {
            g
        }
        fn into_given(self) -> Option<Self> {
            Some(self)
        }
    };
}

macro_rules! numeric_param {
    ($($t:ty),*) => {$(
        impl ParamValue for $t {
            given_as_itself!();
            fn numbers(&self) -> Vec<f64> {
                vec![*self as f64]
            }
        }
        impl ParamValue for Vec<$t> {
            given_as_itself!();
            fn numbers(&self) -> Vec<f64> {
                self.iter().map(|&v| v as f64).collect()
            }
        }
    )*};
}
numeric_param!(u8, u32, u64, f64);

impl ParamValue for bool {
    given_as_itself!();
    fn numbers(&self) -> Vec<f64> {
        Vec::new()
    }
}

impl ParamValue for Vec<String> {
    given_as_itself!();
    fn numbers(&self) -> Vec<f64> {
        Vec::new()
    }
}

impl ParamValue for QueueLimit {
    given_as_itself!();
    fn numbers(&self) -> Vec<f64> {
        vec![match *self {
            QueueLimit::Packets(n) => n as f64,
            QueueLimit::Bytes(n) => n as f64,
        }]
    }
}

/// An optional parameter (a profile may leave it unset); a scenario gives the value itself.
impl<T: ParamValue<Given = T>> ParamValue for Option<T> {
    type Given = T;
    fn from_given(g: T) -> Self {
        Some(g)
    }
    fn into_given(self) -> Option<T> {
        self
    }
    fn numbers(&self) -> Vec<f64> {
        self.as_ref().map_or_else(Vec::new, T::numbers)
    }
    fn choices() -> Option<&'static [&'static str]> {
        T::choices()
    }
}

/// An enum of named choices (a parameter of kind `choice`, or a profile): serde as the names.
/// `pub enum Name = Variant { .. }` makes `Variant` the default; `pub profile enum` also makes
/// the enum a discipline's [`Profile`].
macro_rules! choice_enum {
    ($(#[$meta:meta])* pub profile enum $name:ident $(= $default:ident)? { $($body:tt)* }) => {
        $crate::schema::choice_enum! { $(#[$meta])* pub enum $name $(= $default)? { $($body)* } }

        impl $crate::schema::Profile for $name {
            const ALL: &'static [Self] = $name::ALL;
            fn name(self) -> &'static str {
                $name::name(self)
            }
        }
    };
    ($(#[$meta:meta])* pub enum $name:ident $(= $default:ident)? { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(impl Default for $name {
            fn default() -> Self {
                $name::$default
            }
        })?

        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The names a scenario writes.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $crate::schema::ParamValue for $name {
            type Given = Self;
            fn from_given(g: Self) -> Self {
                g
            }
            fn into_given(self) -> Option<Self> {
                Some(self)
            }
            fn numbers(&self) -> Vec<f64> {
                Vec::new()
            }
            fn choices() -> Option<&'static [&'static str]> {
                Some($name::NAMES)
            }
        }
    };
}
pub(crate) use choice_enum;

/// The named profiles of a discipline ([`NoProfile`] for those that have one behaviour only).
pub trait Profile: Copy + Debug + Default + PartialEq + Serialize + DeserializeOwned + 'static {
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
    /// True for [`NoProfile`]: the resolved form then leaves the profile out.
    fn is_sole(&self) -> bool {
        Self::ALL.len() == 1
    }
}

choice_enum! {
    /// The single profile of a discipline that has no named variants.
    pub profile enum NoProfile = Default {
        Default = "default",
    }
}

/// Range check of one resolved value; the error names the user's field and the range in
/// user units.
pub fn check_value<T: ParamValue>(name: &str, kind: Kind, unit: Option<&str>, range: &Range, v: &T) -> Result<(), String> {
    for x in v.numbers() {
        if !range.contains(x) {
            let shown = if x.is_finite() { kind.show(x, unit) } else { format!("{x}") };
            return Err(format!("{name}: {shown} is outside the accepted range {}", range.show(kind, unit)));
        }
    }
    Ok(())
}

/// A configuration that resolves into the parameters it runs with: a discipline declared by a
/// [`params!`](crate::params) table, or a whole nested queue table.
pub trait Declared {
    type Params;
    /// Checks and fills in the configuration: every default of the profile, then the range
    /// checks, then the discipline's own cross-field rules ([`Finish`]).
    fn resolve(&self) -> Result<Self::Params, String>;
    /// This configuration's fields where given, else `base`'s (a wrapper's defaults for a
    /// nested table).
    fn overlay(&self, base: &Self) -> Self;
}

/// The cross-field rules and derived values of a discipline, run on the resolved parameters
/// after the range checks; `given` is what the scenario set.
pub trait Finish<C> {
    fn finish(&mut self, _given: &C) -> Result<(), String> {
        Ok(())
    }
}

/// Whether the scenario gave a field a value other than the one it resolves to anyway (the
/// profile's default, from [`defaults`](crate::params)): for the rules that refuse a parameter
/// where it does nothing, yet accept it written out at that value, as a resolved record holds it.
pub fn departs<T: PartialEq>(given: &Option<T>, default: &Option<T>) -> bool {
    given.is_some() && given != default
}

/// A nested table resolved inside its wrapper: the wrapper's default table (if any) under
/// what the scenario gave; errors prefixed with the field's name.
pub fn resolve_nested<C: Declared + Clone>(field: &str, given: Option<&C>, default: Option<&C>) -> Result<C::Params, String> {
    let table = match (given, default) {
        (Some(g), Some(d)) => g.overlay(d),
        (Some(g), None) => g.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => return Err(format!("{field}: is required")),
    };
    table.resolve().map_err(|e| format!("{field}.{e}"))
}

/// One parameter in the machine-readable description.
#[derive(Clone, Debug, Serialize)]
pub struct ParamSchema {
    pub name: &'static str,
    pub kind: Kind,
    pub doc: String,
    /// Unit of a `float` or `int` parameter ("Hz", "packets", ...); the other kinds imply theirs.
    pub unit: Option<&'static str>,
    pub min: Option<Value>,
    pub max: Option<Value>,
    pub min_open: bool,
    pub max_open: bool,
    pub choices: Option<Vec<Value>>,
    /// For kind `qdisc`: the discipline of the nested table (none: any, named by its `type`).
    pub inner: Option<&'static str>,
    /// Default per profile (null: unset).
    pub defaults: BTreeMap<&'static str, Value>,
}

impl ParamSchema {
    /// The description of a parameter from its table row.
    pub fn new<T: ParamValue>(name: &'static str, kind: Kind, doc: &[&str], unit: Option<&'static str>, range: Range, inner: Option<&'static str>) -> Self {
        let number = |v: f64| if kind.integral() && v.fract() == 0.0 { Value::from(v as i64) } else { Value::from(v) };
        let choices = match T::choices() {
            Some(names) => Some(names.iter().map(|&n| Value::from(n)).collect()),
            None if !range.one_of.is_empty() => Some(range.one_of.iter().map(|&v| number(v)).collect()),
            None => None,
        };
        ParamSchema {
            name,
            kind,
            doc: doc.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ").trim().to_string(),
            unit,
            min: range.min.map(number),
            max: range.max.map(number),
            min_open: range.min_open,
            max_open: range.max_open,
            choices,
            inner,
            defaults: BTreeMap::new(),
        }
    }
}

/// One discipline in the machine-readable description.
#[derive(Clone, Debug, Serialize)]
pub struct DisciplineSchema {
    pub doc: &'static str,
    pub source: &'static str,
    pub profiles: Vec<&'static str>,
    pub default_profile: &'static str,
    pub params: Vec<ParamSchema>,
}

/// The machine-readable description of every discipline, keyed by its `type`.
pub fn qdisc_schema() -> BTreeMap<&'static str, DisciplineSchema> {
    crate::config::schemas()
}

/// [`qdisc_schema`] as JSON (what `aqmlab._core.qdisc_schema()` returns).
pub fn qdisc_schema_json() -> String {
    serde_json::to_string(&qdisc_schema()).expect("the schema serializes")
}

/// Declares a discipline's parameter table (see the module documentation).
///
/// ```text
/// params! {
///     /// doc of the discipline
///     config PieConfig => PieParams, profile PieProfile,
///     doc "…", source "…";
///     fields {
///         /// doc of the parameter
///         target: Nanos [Duration, None, Range::closed(…)] = { Paper: …, Rfc: …, … };
///         alpha: f64 [Float, Some("Hz"), Range::closed(…)] = (0.125);   // every profile
///     }
///     nested {
///         pie: PieConfig => PieParams [Some("pie")] = (Some(PieConfig { … }));
///     }
/// }
/// ```
/// A default is either `(expr)` for every profile or `{ Variant: expr, … }` naming each profile
/// (the match is exhaustive, so a profile added later must be given a value).
#[macro_export]
macro_rules! params {
    (
        $(#[doc = $cdoc:literal])*
        config $config:ident => $params:ident, profile $profile:ty,
        doc $doc:literal, source $source:literal;
        fields {
            $(
                $(#[doc = $fdoc:literal])*
                $field:ident : $ty:ty [$kind:ident, $unit:expr, $range:expr] = $default:tt;
            )*
        }
        $(nested {
            $(
                $(#[doc = $ndoc:literal])*
                $nfield:ident : $ncfg:ty => $nres:ty [$inner:expr] = $ndefault:tt;
            )*
        })?
    ) => {
        $(#[doc = $cdoc])*
        ///
        /// The scenario's form: every field optional (the profile's default where absent).
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $config {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub profile: Option<$profile>,
            $(
                $(#[doc = $fdoc])*
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $field: Option<<$ty as $crate::schema::ParamValue>::Given>,
            )*
            $($(
                $(#[doc = $ndoc])*
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $nfield: Option<$ncfg>,
            )*)?
        }

        $(#[doc = $cdoc])*
        ///
        /// The resolved form: every parameter as it runs.
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        pub struct $params {
            #[serde(skip_serializing_if = "crate::schema::Profile::is_sole")]
            pub profile: $profile,
            $(
                $(#[doc = $fdoc])*
                pub $field: $ty,
            )*
            $($(
                $(#[doc = $ndoc])*
                pub $nfield: $nres,
            )*)?
        }

        impl $crate::schema::Declared for $config {
            type Params = $params;

            fn resolve(&self) -> Result<$params, String> {
                let profile = self.profile.unwrap_or_default();
                let mut p = $params {
                    profile,
                    $($field: match &self.$field {
                        Some(v) => <$ty as $crate::schema::ParamValue>::from_given(v.clone()),
                        None => $crate::by_profile!($profile, profile, $default),
                    },)*
                    $($($nfield: $crate::schema::resolve_nested(
                        stringify!($nfield),
                        self.$nfield.as_ref(),
                        $crate::by_profile!($profile, profile, $ndefault).as_ref(),
                    )?,)*)?
                };
                $($crate::schema::check_value(stringify!($field), $crate::schema::Kind::$kind, $unit, &$range, &p.$field)?;)*
                $crate::schema::Finish::finish(&mut p, self)?;
                Ok(p)
            }

            fn overlay(&self, base: &Self) -> Self {
                $config {
                    profile: self.profile.or(base.profile),
                    $($field: self.$field.clone().or_else(|| base.$field.clone()),)*
                    $($($nfield: self.$nfield.clone().or_else(|| base.$nfield.clone()),)*)?
                }
            }
        }

        impl $config {
            /// Every field at `profile`'s default (an optional parameter unset there stays
            /// `None`): what a table that gives nothing resolves to, in the scenario's form.
            pub fn defaults(profile: $profile) -> $config {
                $config {
                    profile: Some(profile),
                    $($field: <$ty as $crate::schema::ParamValue>::into_given($crate::by_profile!($profile, profile, $default)),)*
                    $($($nfield: $crate::by_profile!($profile, profile, $ndefault),)*)?
                }
            }

            /// This discipline's entry in [`qdisc_schema`]($crate::schema::qdisc_schema).
            pub fn schema() -> $crate::schema::DisciplineSchema {
                use $crate::schema::Profile;
                let profiles = <$profile as Profile>::ALL;
                let mut params = Vec::new();
                $({
                    let mut s = $crate::schema::ParamSchema::new::<$ty>(stringify!($field), $crate::schema::Kind::$kind, &[$($fdoc),*], $unit, $range, None);
                    for &pr in profiles {
                        let v: $ty = $crate::by_profile!($profile, pr, $default);
                        s.defaults.insert(pr.name(), serde_json::to_value(&v).expect("a default serializes"));
                    }
                    params.push(s);
                })*
                $($({
                    let mut s = $crate::schema::ParamSchema::new::<bool>(stringify!($nfield), $crate::schema::Kind::Qdisc, &[$($ndoc),*], None, $crate::schema::Range::ANY, $inner);
                    for &pr in profiles {
                        let v: Option<$ncfg> = $crate::by_profile!($profile, pr, $ndefault);
                        s.defaults.insert(pr.name(), serde_json::to_value(&v).expect("a default serializes"));
                    }
                    params.push(s);
                })*)?
                $crate::schema::DisciplineSchema {
                    doc: $doc,
                    source: $source,
                    profiles: profiles.iter().map(|p| p.name()).collect(),
                    default_profile: <$profile>::default().name(),
                    params,
                }
            }
        }
    };
}

/// A default from a [`params!`](crate::params) row: `(expr)` for every profile, or
/// `{ Variant: expr, … }` per profile.
#[macro_export]
macro_rules! by_profile {
    ($profile:ty, $p:expr, { $($variant:ident : $e:expr),+ $(,)? }) => {{
        type P = $profile;
        match $p {
            $(P::$variant => $e,)+
        }
    }};
    ($profile:ty, $p:expr, ($e:expr)) => {{
        let _ = $p;
        $e
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_user_units_in_errors() {
        let r = Range::closed(1_000.0, 10e9);
        assert_eq!(check_value("target", Kind::Duration, None, &r, &0u64), Err("target: 0ns is outside the accepted range [1us, 10s]".into()));
        assert_eq!(check_value("target", Kind::Duration, None, &r, &15_000_000u64), Ok(()));
        let g = Range::closed(0.0, 1e6);
        assert_eq!(check_value("alpha", Kind::Float, Some("Hz"), &g, &-1.0), Err("alpha: -1 Hz is outside the accepted range [0 Hz, 1000000 Hz]".into()));
        assert!(check_value("alpha", Kind::Float, Some("Hz"), &g, &f64::NAN).unwrap_err().contains("NaN"));
        let w = Range::above(0.0, 1.0);
        assert!(check_value("w_q", Kind::Float, None, &w, &0.0).unwrap_err().ends_with("(0, 1]"));
        assert_eq!(check_value("x", Kind::Float, None, &w, &None::<f64>), Ok(()));
        let hz = Range::one_of(&[100.0, 250.0]);
        assert_eq!(check_value("hz", Kind::Int, None, &hz, &123u32), Err("hz: 123 is outside the accepted range one of 100, 250".into()));
        assert_eq!(check_value("limit", Kind::Limit, None, &Range::at_least(1.0), &QueueLimit::Bytes(0)), Err("limit: 0 is outside the accepted range at least 1".into()));
        assert_eq!(check_value("rate", Kind::Rate, None, &Range::at_least(1000.0), &10u64), Err("rate: 10bps is outside the accepted range at least 1kbps".into()));
        assert_eq!(check_value("dscp", Kind::IntList, None, &Range::closed(0.0, 63.0), &vec![1u8, 64]), Err("dscp: 64 is outside the accepted range [0, 63]".into()));
    }

    #[test]
    fn formatting_picks_the_largest_exact_unit() {
        assert_eq!((fmt_duration(15_000_000), fmt_duration(1_500_000), fmt_duration(7), fmt_duration(0)), ("15ms".into(), "1500us".into(), "7ns".into(), "0ns".into()));
        assert_eq!((fmt_rate(10_000_000), fmt_rate(1_500_000), fmt_rate(999)), ("10Mbps".into(), "1500kbps".into(), "999bps".into()));
    }
}
