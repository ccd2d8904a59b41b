//! The tuning mechanism every tunable routine shares: the [`Tuning`] modes, one cache file
//! per routine and device in the user's cache directory, and the per-context record of what
//! was chosen and timed. What the choices are (kernels, block sizes) and how they are timed
//! belongs to each routine, beside it (sgemm: `blas::level3::gemm::tune`); here a choice is
//! a name and a shape class is a key, both strings.
//!
//! A cache file holds a magic line naming the routine, a line naming the device and driver,
//! then one `<class key> <choice>` line per class. Files are written through a temporary
//! file and a rename, so a reader never sees half a file.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::device::info::DeviceInfo;
use crate::error::{Error, Result};

/// Environment variable for the tuning mode: `off`, `cached`, `auto`, `force`, or `clear`
/// (delete this device's cache files when a context opens, then tune as `auto`).
pub const TUNE_ENV: &str = "FRAGBLAS_TUNE";

/// Environment variable naming the directory of the tuning cache (default:
/// `$XDG_CACHE_HOME/fragblas`, else `$HOME/.cache/fragblas`).
pub const TUNE_CACHE_ENV: &str = "FRAGBLAS_TUNE_CACHE";

/// The routines that have tuning choices; each has its own cache file per device.
pub(crate) const TUNED_ROUTINES: [&str; 1] = ["sgemm"];

/// How much auto-tuning a context does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tuning {
    /// Never time, never read or write the cache: built-in defaults per device.
    Off,
    /// Use choices from the cache; built-in defaults for classes it lacks; never time.
    Cached,
    /// Use the cache; time a class it lacks on its first large enough call and save it.
    Auto,
    /// Time every class again on its first large enough call in this context, ignoring
    /// (and then overwriting) the cache.
    Force,
}

impl Tuning {
    /// Parses a [`TUNE_ENV`] value; `clear` is `Auto` plus a request to clear the cache.
    pub(crate) fn parse(s: &str) -> Option<(Tuning, bool)> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "0" | "no" => Some((Tuning::Off, false)),
            "" | "cached" => Some((Tuning::Cached, false)),
            "auto" | "1" | "yes" => Some((Tuning::Auto, false)),
            "force" => Some((Tuning::Force, false)),
            "clear" => Some((Tuning::Auto, true)),
            _ => None,
        }
    }
}

/// 64-bit FNV-1a: a stable hash for cache file names (std's hasher may change between Rust
/// releases).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The identity of a device and driver as the cache sees it.
pub(crate) fn device_key(info: &DeviceInfo) -> String {
    format!(
        "{} | {} | {} | {:?} | fragblas {}",
        info.vendor,
        info.renderer,
        info.version,
        info.api,
        env!("CARGO_PKG_VERSION")
    )
}

/// Ending of every cache file of a device key.
fn file_suffix(key: &str) -> String {
    format!("-{:016x}.tune", fnv1a(key.as_bytes()))
}

/// The cache file of `routine` for a device key inside `dir`.
pub(crate) fn cache_file(dir: &Path, routine: &str, key: &str) -> PathBuf {
    dir.join(format!("{routine}{}", file_suffix(key)))
}

/// The cache directory from the environment, if one can be named.
pub(crate) fn default_cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(TUNE_CACHE_ENV)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("fragblas")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("fragblas")))
}

fn magic(routine: &str) -> String {
    format!("# fragblas {routine} tuning cache v1")
}

/// Reads the choices of a cache file's text as `class key -> choice`: the last word of a
/// line is the choice, the words before it (joined by single spaces) the class. A file of
/// another routine or device gives nothing; comment lines and lines of one word are
/// skipped. Whether a class or choice means anything is the routine's business.
pub(crate) fn parse_cache(text: &str, routine: &str, key: &str) -> HashMap<String, String> {
    let mut lines = text.lines();
    let mut out = HashMap::new();
    if lines.next() != Some(magic(routine).as_str())
        || lines.next() != Some(&format!("# device: {key}"))
    {
        return out;
    }
    for line in lines.filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some((choice, class)) = words.split_last().filter(|(_, c)| !c.is_empty()) {
            out.insert(class.join(" "), choice.to_string());
        }
    }
    out
}

/// The text of a cache file holding `choices` (sorted by `order` of the class, so that
/// files diff well).
pub(crate) fn format_cache<O: Ord>(
    routine: &str,
    key: &str,
    choices: &HashMap<String, String>,
    order: impl Fn(&str) -> O,
) -> String {
    let mut classes: Vec<_> = choices.iter().collect();
    classes.sort_by_key(|(c, _)| order(c));
    let mut s = format!("{}\n# device: {key}\n", magic(routine));
    for (c, k) in classes {
        s.push_str(&format!("{c} {k}\n"));
    }
    s
}

/// What one routine's tuning knows in one context.
#[derive(Default)]
struct Table {
    choices: HashMap<String, String>,
    loaded: bool,
    /// Classes timed by this context (in `Force` mode each is timed once).
    timed: HashSet<String>,
}

/// Per-context tuning state: the mode, the cache files, and the choices known so far.
pub(crate) struct Tuner {
    mode: Cell<Tuning>,
    key: String,
    dir: Option<PathBuf>,
    files: Vec<(&'static str, PathBuf)>,
    tables: RefCell<HashMap<&'static str, Table>>,
    /// Choices the caller pinned per routine: used wherever they can run, before any
    /// remembered or default one.
    pinned: RefCell<HashMap<&'static str, String>>,
}

impl Tuner {
    /// A tuner for the device `info`, caching in `dir` (none: in memory only).
    pub(crate) fn new(info: &DeviceInfo, mode: Tuning, dir: Option<PathBuf>) -> Self {
        let key = device_key(info);
        let files = match &dir {
            Some(d) => TUNED_ROUTINES
                .iter()
                .map(|r| (*r, cache_file(d, r, &key)))
                .collect(),
            None => Vec::new(),
        };
        Tuner {
            mode: Cell::new(mode),
            key,
            dir,
            files,
            tables: RefCell::new(HashMap::new()),
            pinned: RefCell::new(HashMap::new()),
        }
    }

    /// Pins `choice` for `routine` (`None` unpins).
    pub(crate) fn pin(&self, routine: &'static str, choice: Option<&str>) {
        let mut p = self.pinned.borrow_mut();
        match choice {
            Some(c) => p.insert(routine, c.to_string()),
            None => p.remove(routine),
        };
    }

    /// The pinned choice of `routine`, if any.
    pub(crate) fn pinned(&self, routine: &'static str) -> Option<String> {
        self.pinned.borrow().get(routine).cloned()
    }

    pub(crate) fn mode(&self) -> Tuning {
        self.mode.get()
    }

    pub(crate) fn set_mode(&self, mode: Tuning) {
        self.mode.set(mode);
    }

    /// The cache file of `routine` (one of [`TUNED_ROUTINES`]), if there is a directory.
    pub(crate) fn file(&self, routine: &str) -> Option<&Path> {
        self.files
            .iter()
            .find(|(r, _)| *r == routine)
            .map(|(_, f)| f.as_path())
    }

    /// Runs `f` on the routine's table, loading its cache file first.
    fn with_table<T>(&self, routine: &'static str, f: impl FnOnce(&mut Table) -> T) -> T {
        let mut tables = self.tables.borrow_mut();
        let table = tables.entry(routine).or_default();
        if !table.loaded {
            table.loaded = true;
            if let Some(text) = self
                .file(routine)
                .and_then(|f| std::fs::read_to_string(f).ok())
            {
                for (c, k) in parse_cache(&text, routine, &self.key) {
                    table.choices.entry(c).or_insert(k);
                }
            }
        }
        f(table)
    }

    /// The remembered choice of `routine` for a class, as the mode allows.
    pub(crate) fn lookup(&self, routine: &'static str, class: &str) -> Option<String> {
        match self.mode() {
            Tuning::Off => None,
            mode => self.with_table(routine, |t| {
                if mode == Tuning::Force && !t.timed.contains(class) {
                    None
                } else {
                    t.choices.get(class).cloned()
                }
            }),
        }
    }

    /// Whether the mode asks for a class of `routine` to be timed now (the routine decides
    /// whether the call is large enough).
    pub(crate) fn should_time(&self, routine: &'static str, class: &str) -> bool {
        matches!(self.mode(), Tuning::Auto | Tuning::Force)
            && !self.with_table(routine, |t| t.timed.contains(class))
    }

    /// Records a choice and writes the routine's cache file (merged with what is on disk
    /// now); `order` sorts the classes in the file. Returns the file written, if any.
    pub(crate) fn record<O: Ord>(
        &self,
        routine: &'static str,
        class: &str,
        choice: &str,
        order: impl Fn(&str) -> O,
    ) -> Result<Option<PathBuf>> {
        self.with_table(routine, |t| {
            t.timed.insert(class.to_string());
            t.choices.insert(class.to_string(), choice.to_string());
        });
        let Some(file) = self.file(routine) else {
            return Ok(None);
        };
        let mut merged = std::fs::read_to_string(file)
            .map(|t| parse_cache(&t, routine, &self.key))
            .unwrap_or_default();
        merged.insert(class.to_string(), choice.to_string());
        let io = |e: std::io::Error| Error::Cache(format!("{}: {e}", file.display()));
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let tmp = file.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, format_cache(routine, &self.key, &merged, order)).map_err(io)?;
        std::fs::rename(&tmp, file).map_err(io)?;
        Ok(Some(file.to_path_buf()))
    }

    /// Forgets every choice and deletes this device's cache files (of every routine).
    pub(crate) fn clear(&self) -> Result<()> {
        let mut tables = self.tables.borrow_mut();
        tables.clear();
        for r in TUNED_ROUTINES {
            tables.insert(
                r,
                Table {
                    loaded: true,
                    ..Table::default()
                },
            );
        }
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let suffix = file_suffix(&self.key);
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::Cache(format!("{}: {e}", dir.display()))),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let ours = path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(&suffix));
            if ours {
                match std::fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(Error::Cache(format!("{}: {e}", path.display()))),
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_text_round_trips_and_rejects_other_devices_and_routines() {
        let mut choices = HashMap::new();
        choices.insert("m12 n12 k12".to_string(), "Strip4".to_string());
        choices.insert("m7 n3 k12".to_string(), "Mrt8".to_string());
        let text = format_cache("sgemm", "dev A", &choices, |c| c.to_string());
        assert!(text.starts_with("# fragblas sgemm tuning cache v1\n# device: dev A\n"));
        assert_eq!(parse_cache(&text, "sgemm", "dev A"), choices);
        assert!(parse_cache(&text, "sgemm", "dev B").is_empty());
        assert!(parse_cache(&text, "strsm", "dev A").is_empty());
        // Comment lines and one-word lines are skipped; runs of spaces fold.
        let edited = format!("{text}# note\ngarbage\nm1   n2 k3 Vec4\n");
        let mut more = choices.clone();
        more.insert("m1 n2 k3".to_string(), "Vec4".to_string());
        assert_eq!(parse_cache(&edited, "sgemm", "dev A"), more);
        assert!(parse_cache("", "sgemm", "dev A").is_empty());
    }

    #[test]
    fn modes_parse_from_the_environment_spelling() {
        assert_eq!(Tuning::parse("off"), Some((Tuning::Off, false)));
        assert_eq!(Tuning::parse(" Cached "), Some((Tuning::Cached, false)));
        assert_eq!(Tuning::parse(""), Some((Tuning::Cached, false)));
        assert_eq!(Tuning::parse("auto"), Some((Tuning::Auto, false)));
        assert_eq!(Tuning::parse("force"), Some((Tuning::Force, false)));
        assert_eq!(Tuning::parse("clear"), Some((Tuning::Auto, true)));
        assert_eq!(Tuning::parse("sometimes"), None);
    }

    #[test]
    fn cache_files_differ_per_device_key_and_routine() {
        let d = Path::new("/tmp/x");
        assert_ne!(cache_file(d, "sgemm", "a"), cache_file(d, "sgemm", "b"));
        assert_ne!(cache_file(d, "sgemm", "a"), cache_file(d, "strsm", "a"));
        assert_eq!(cache_file(d, "sgemm", "a"), cache_file(d, "sgemm", "a"));
        assert!(cache_file(d, "sgemm", "a")
            .to_str()
            .unwrap()
            .ends_with(&file_suffix("a")));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
