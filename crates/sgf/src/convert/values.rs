//! The values of known properties checked against their types, and corrected where SGFC
//! corrects them.

use super::*;

/// Checks and corrects the values of one known property; false when it is to be deleted.
pub(super) fn check_values(item: &mut Item<'_>, g: &GameCtx, diags: &mut DiagnosticSink) -> bool {
    let Some(info) = item.info() else { return true };
    let id = info.id;
    let off = item.offset;
    if info.arity == Arity::One && item.values.len() > 1 {
        diags.push(Diagnostic::new(
            Code::TooManyValues,
            off,
            format!("property {id} takes one value (other values deleted)"),
        ));
        item.values.truncate(1);
    }
    if info.go_only && !g.is_go() {
        return true;
    }
    if !g.is_go()
        && matches!(
            info.value,
            ValueType::Point | ValueType::Move | ValueType::PointPair | ValueType::PointText
        )
    {
        // Points of other games have other syntaxes: kept as they are.
        return true;
    }
    if info.arity == Arity::EList && item.values.iter().any(|v| v.is_empty()) {
        if item.values.len() > 1 {
            diags.push(Diagnostic::new(
                Code::ValuesAfterEmpty,
                off,
                format!("{id}: values beside the empty value [] (deleted)"),
            ));
        }
        item.values = vec![Cow::Borrowed(&b""[..])];
        return true;
    }
    if id == "SZ" || id == "GM" {
        return check_root_value(item, g, diags);
    }
    let mut kept = Vec::with_capacity(item.values.len());
    for raw in std::mem::take(&mut item.values) {
        let v = Value::from_raw(&raw);
        let verdict = judge(info.value, id, &v, g);
        match verdict {
            Verdict::Ok => kept.push(raw),
            Verdict::Pass => {
                if raw.is_empty() && g.ff < 4 {
                    diags.push(Diagnostic::new(
                        Code::EmptyPassInOldFormat,
                        off,
                        format!(
                            "FF[4]-style pass {id}[] in an FF[{}] file (read as a pass)",
                            g.ff
                        ),
                    ));
                }
                kept.push(Cow::Borrowed(&b""[..]));
            }
            Verdict::Fix(new) => {
                let composed = matches!(info.value, ValueType::PointPair | ValueType::PointText)
                    || new.contains(&b':');
                diags.push(Diagnostic::new(
                    if composed {
                        Code::CorrectableComposed
                    } else {
                        Code::CorrectableValue
                    },
                    off,
                    format!(
                        "illegal {id} value [{}] corrected to [{}]",
                        String::from_utf8_lossy(&raw),
                        String::from_utf8_lossy(&new)
                    ),
                ));
                kept.push(Cow::Owned(new));
            }
            Verdict::Empty => {
                let texty = matches!(info.value, ValueType::Text | ValueType::SimpleText);
                let d =
                    Diagnostic::new(Code::EmptyValue, off, format!("empty {id} value (deleted)"));
                diags.push(if texty {
                    d.with_severity(Severity::Warning)
                } else {
                    d
                });
            }
            Verdict::OffBoard => diags.push(Diagnostic::new(
                Code::OffBoard,
                off,
                format!(
                    "{id}[{}] is outside the {}x{} board (deleted)",
                    String::from_utf8_lossy(&raw),
                    g.cols,
                    g.rows
                ),
            )),
            Verdict::NotComposed => diags.push(Diagnostic::new(
                Code::ExpectsComposed,
                off,
                format!(
                    "property {id} expects a composed value a:b (value [{}] deleted)",
                    String::from_utf8_lossy(&raw)
                ),
            )),
            Verdict::Bad => diags.push(Diagnostic::new(
                Code::IllegalValue,
                off,
                format!(
                    "illegal {id} value [{}] (deleted)",
                    String::from_utf8_lossy(&raw)
                ),
            )),
        }
    }
    item.values = kept;
    if matches!(id, "DT" | "RE") {
        if let Some(v) = item.values.first() {
            let text = Value::from_raw(v).simple_text();
            let ok = if id == "DT" {
                valid_date(&text)
            } else {
                valid_result(&text)
            };
            if !ok {
                diags.push(Diagnostic::new(
                    Code::GameInfoFormat,
                    off,
                    format!("game info {id} has a format FF[4] does not define (kept): [{text}]"),
                ));
            }
        }
    }
    !item.values.is_empty()
}

/// The numbers of an SZ value (`n` or `c:r`), each at least 1.
pub(super) fn size_parts(v: &Value<'_>) -> Option<Vec<i64>> {
    let nums = match v.compose() {
        None => vec![v.number()?],
        Some((a, b)) => vec![a.number()?, b.number()?],
    };
    nums.iter().all(|&x| x >= 1).then_some(nums)
}

/// SZ as convert writes it: each side at most 52, `n:n` as `n`, a Go board at least 2.
pub(super) fn corrected_size(nums: &[i64], is_go: bool) -> Vec<i64> {
    let clamped: Vec<i64> = nums.iter().map(|&n| n.min(52)).collect();
    let mut fixed = if clamped.len() == 2 && clamped[0] == clamped[1] {
        vec![clamped[0]]
    } else {
        clamped
    };
    if is_go && fixed.len() == 1 && fixed[0] < 2 {
        fixed[0] = 2;
    }
    fixed
}

/// GM and SZ: an illegal value is deleted (GM\[1\] and SZ\[19\] are then
/// assumed, S018), a size over 52 is corrected to 52 (S050), `SZ[n:n]` to `SZ[n]` (S047).
fn check_root_value(item: &mut Item<'_>, g: &GameCtx, diags: &mut DiagnosticSink) -> bool {
    let off = item.offset;
    let raw = item.values.first().cloned().unwrap_or_default();
    let v = Value::from_raw(&raw);
    let shown = String::from_utf8_lossy(&raw).into_owned();
    if item.id == "GM" {
        if v.number().is_some_and(|n| (1..=1000).contains(&n)) {
            return true;
        }
        diags.push(Diagnostic::new(
            Code::IllegalRootValue,
            off,
            format!("illegal GM value [{shown}] (deleted: GM[1] assumed)"),
        ));
        return false;
    }
    let Some(nums) = size_parts(&v) else {
        diags.push(Diagnostic::new(
            Code::IllegalRootValue,
            off,
            format!("illegal SZ value [{shown}] (deleted: SZ[19] assumed)"),
        ));
        return false;
    };
    let clamped: Vec<i64> = nums.iter().map(|&n| n.min(52)).collect();
    let fixed = corrected_size(&nums, g.is_go());
    if clamped != nums {
        diags.push(Diagnostic::new(
            Code::BoardSize,
            off,
            format!("board size [{shown}] too big (corrected to at most 52)"),
        ));
    }
    if nums.len() == 2 && clamped[0] == clamped[1] {
        diags.push(Diagnostic::new(
            Code::SquareAsRectangle,
            off,
            format!("square board written as SZ[{shown}] (corrected)"),
        ));
    }
    if g.is_go() && fixed.len() == 1 && clamped[0] < 2 {
        diags.push(Diagnostic::new(
            Code::BoardSize,
            off,
            format!("board size [{shown}] too small for Go (corrected to 2)"),
        ));
    }
    let text = fixed
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(":");
    item.values = vec![Cow::Owned(text.into_bytes())];
    true
}

enum Verdict {
    Ok,
    Pass,
    Fix(Vec<u8>),
    Empty,
    OffBoard,
    NotComposed,
    Bad,
}

fn judge(t: ValueType, id: &str, v: &Value<'_>, g: &GameCtx) -> Verdict {
    let raw = v.raw();
    let on_board = |p: crate::SgfPoint| (p.col as u32) < g.cols && (p.row as u32) < g.rows;
    let point = |v: &Value<'_>| -> Verdict {
        match v.point() {
            Some(p) if on_board(p) => Verdict::Ok,
            Some(_) => Verdict::OffBoard,
            None => {
                let squeezed: Vec<u8> = v
                    .raw()
                    .iter()
                    .copied()
                    .filter(|b| !b.is_ascii_whitespace())
                    .collect();
                match Value::from_raw(&squeezed).point() {
                    Some(p) if on_board(p) && squeezed.len() != v.raw().len() => {
                        Verdict::Fix(squeezed)
                    }
                    _ => Verdict::Bad,
                }
            }
        }
    };
    match t {
        ValueType::None => {
            if raw.is_empty() {
                Verdict::Ok
            } else {
                Verdict::Fix(Vec::new())
            }
        }
        ValueType::Number => match v.number() {
            Some(_) => Verdict::Ok,
            None if raw.is_empty() => Verdict::Empty,
            None => leading_number(raw).map_or(Verdict::Bad, Verdict::Fix),
        },
        ValueType::Real => match v.real() {
            Some(_) if raw.last() == Some(&b'.') => Verdict::Fix(raw[..raw.len() - 1].to_vec()),
            Some(_) => Verdict::Ok,
            None if raw.is_empty() => Verdict::Empty,
            None => fraction(raw).map_or(Verdict::Bad, Verdict::Fix),
        },
        ValueType::Double | ValueType::Triple => match v.double() {
            Some(_) => Verdict::Ok,
            None if raw.is_empty() => Verdict::Fix(b"1".to_vec()),
            None => match raw.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'1') => Verdict::Fix(b"1".to_vec()),
                Some(b'2') => Verdict::Fix(b"2".to_vec()),
                _ => Verdict::Bad,
            },
        },
        ValueType::Color => match raw {
            b"B" | b"W" => Verdict::Ok,
            _ => match raw
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .map(u8::to_ascii_uppercase)
            {
                Some(b'B') => Verdict::Fix(b"B".to_vec()),
                Some(b'W') => Verdict::Fix(b"W".to_vec()),
                _ => Verdict::Bad,
            },
        },
        ValueType::SimpleText | ValueType::Text | ValueType::Unknown => {
            if raw.is_empty() && t != ValueType::Unknown {
                Verdict::Empty
            } else {
                Verdict::Ok
            }
        }
        ValueType::Move => {
            if raw.is_empty() {
                return Verdict::Pass;
            }
            if raw == b"tt" && g.cols <= 19 && g.rows <= 19 {
                return Verdict::Pass;
            }
            point(v)
        }
        ValueType::Point => {
            if raw.is_empty() {
                return Verdict::Empty;
            }
            match v.compose() {
                None => point(v),
                Some((a, b)) => match (point(&a), point(&b)) {
                    (Verdict::Ok, Verdict::Ok) => Verdict::Ok,
                    (Verdict::OffBoard, _) | (_, Verdict::OffBoard) => Verdict::OffBoard,
                    _ => squeeze_compose(raw, |x| Value::from_raw(x).point().is_some_and(on_board)),
                },
            }
        }
        ValueType::PointPair => match v.compose() {
            None if raw.is_empty() => Verdict::Empty,
            None => Verdict::NotComposed,
            Some((a, b)) => match (point(&a), point(&b)) {
                // FF[4]: an arrow or line from a point to itself is illegal.
                (Verdict::Ok, Verdict::Ok) if a.raw() == b.raw() => Verdict::Bad,
                (Verdict::Ok, Verdict::Ok) => Verdict::Ok,
                (Verdict::OffBoard, _) | (_, Verdict::OffBoard) => Verdict::OffBoard,
                _ => {
                    match squeeze_compose(raw, |x| Value::from_raw(x).point().is_some_and(on_board))
                    {
                        Verdict::Fix(f) if f[..f.len() / 2] == f[f.len() / 2 + 1..] => Verdict::Bad,
                        other => other,
                    }
                }
            },
        },
        ValueType::PointText => match v.compose() {
            None if raw.is_empty() => Verdict::Empty,
            None => Verdict::NotComposed,
            Some((a, _)) => match point(&a) {
                Verdict::Ok => Verdict::Ok,
                Verdict::Fix(p) => {
                    let mut n = p;
                    n.extend_from_slice(&raw[a.raw().len()..]);
                    Verdict::Fix(n)
                }
                other => other,
            },
        },
        ValueType::TextPair => {
            if v.compose().is_some() || !raw.is_empty() {
                Verdict::Ok
            } else {
                Verdict::Empty
            }
        }
        ValueType::Size => match v.size() {
            Some((c, r)) if c == r && v.compose().is_some() => {
                Verdict::Fix(c.to_string().into_bytes())
            }
            Some(_) => Verdict::Ok,
            None => {
                let _ = id;
                Verdict::Bad
            }
        },
        ValueType::Figure => {
            if raw.is_empty() || v.compose().is_some_and(|(n, _)| n.number().is_some()) {
                Verdict::Ok
            } else {
                Verdict::Bad
            }
        }
    }
}

/// `a a: c r` → `aa:cr` when both halves are then valid.
fn squeeze_compose(raw: &[u8], ok: impl Fn(&[u8]) -> bool) -> Verdict {
    let squeezed: Vec<u8> = raw
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    match Value::from_raw(&squeezed).compose() {
        Some((a, b)) if ok(a.raw()) && ok(b.raw()) => Verdict::Fix(squeezed.clone()),
        _ => Verdict::Bad,
    }
}

/// `1 kk` → `1`.
fn leading_number(raw: &[u8]) -> Option<Vec<u8>> {
    let s = std::str::from_utf8(raw).ok()?.trim_start();
    let sign = usize::from(s.starts_with(['+', '-']));
    let digits = s[sign..].bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| {
        s[..sign + digits]
            .trim_start_matches('+')
            .as_bytes()
            .to_vec()
    })
}

/// `5 1/2` → `5.5`, `1/2` → `0.5`, `34.` handled by the caller.
fn fraction(raw: &[u8]) -> Option<Vec<u8>> {
    let s = std::str::from_utf8(raw).ok()?.trim();
    let (whole, frac) = match s.split_once(' ') {
        Some((w, f)) => (w.trim(), f.trim()),
        None => ("0", s),
    };
    let (n, d) = frac.split_once('/')?;
    let (w, n, d): (i64, i64, i64) = (
        whole.parse().ok()?,
        n.trim().parse().ok()?,
        d.trim().parse().ok()?,
    );
    if d == 0 || n < 0 || d > 1000 {
        return None;
    }
    let x = w.abs() as f64 + n as f64 / d as f64;
    let x = if whole.starts_with('-') { -x } else { x };
    Some(format_real(x).into_bytes())
}

/// FF\[4\] DT: comma-separated `YYYY[-MM[-DD]]`, later entries may shorten to `MM-DD` or `DD`.
pub(super) fn valid_date(s: &str) -> bool {
    let mut have_month = false;
    let mut have_day = false;
    let mut first = true;
    for part in s.split(',') {
        let f: Vec<&str> = part.trim().split('-').collect();
        let num = |x: &str, n: usize| x.len() == n && x.bytes().all(|b| b.is_ascii_digit());
        let ok = match f.as_slice() {
            [y] if num(y, 4) => {
                have_month = false;
                have_day = false;
                true
            }
            [y, m] if num(y, 4) && num(m, 2) => {
                have_month = true;
                have_day = false;
                true
            }
            [y, m, d] if num(y, 4) && num(m, 2) && num(d, 2) => {
                have_month = true;
                have_day = true;
                true
            }
            [m, d] if !first && num(m, 2) && num(d, 2) && have_month => {
                have_day = true;
                true
            }
            [x] if !first && num(x, 2) && (have_month || have_day) => true,
            _ => false,
        };
        if !ok {
            return false;
        }
        first = false;
    }
    true
}

/// FF\[4\] RE: `0`, `Draw`, `Void`, `?`, or `B+`/`W+` followed by nothing, a
/// score, `R`/`Resign`, `T`/`Time` or `F`/`Forfeit`.
pub(super) fn valid_result(s: &str) -> bool {
    match s {
        "0" | "Draw" | "Void" | "?" => true,
        _ => {
            let Some(rest) = s.strip_prefix("B+").or_else(|| s.strip_prefix("W+")) else {
                return false;
            };
            matches!(rest, "" | "R" | "Resign" | "T" | "Time" | "F" | "Forfeit")
                || Value::from_raw(rest.as_bytes()).real().is_some()
        }
    }
}
