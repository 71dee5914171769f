//! [`Engine`]: one GTP engine process, commands with timeouts, restart and clean shutdown.

use std::collections::BTreeSet;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// The longest line accepted from an engine; a longer one is a protocol error (bounded memory).
pub const MAX_LINE: usize = 1 << 20;
/// The most lines accepted in one response.
pub const MAX_RESPONSE_LINES: usize = 100_000;
/// The longest wait for anything: longer timeouts are cut to this, so that a deadline can always
/// be computed (`Instant + Duration` panics on overflow).
pub const MAX_WAIT: Duration = Duration::from_secs(365 * 24 * 3600);
/// The startup timeout of [`EngineConfig::from_command_line`].
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(20);
/// The command timeout of [`EngineConfig::from_command_line`].
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// What a GTP engine process does with its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StderrMode {
    /// Discarded (the default: an engine that chatters cannot block on a full pipe).
    #[default]
    Null,
    /// Passed through to this process's standard error.
    Inherit,
}

/// How to start an engine and how long to wait for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineConfig {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// How long the engine may take to answer its first command (`protocol_version`).
    pub startup_timeout: Duration,
    /// How long a `quit` may take before the process is killed.
    pub quit_grace: Duration,
    /// The timeout of [`Engine::command`].
    pub command_timeout: Duration,
    /// Where the engine's standard error goes.
    pub stderr: StderrMode,
}

impl EngineConfig {
    /// A configuration from a command line, split as a POSIX shell would split it (quotes and
    /// backslashes, no expansions): `gnugo --mode gtp --level 0`.
    pub fn from_command_line(line: &str) -> Result<EngineConfig, GtpError> {
        let argv = shlex::split(line).ok_or_else(|| GtpError::CommandLine(line.to_string()))?;
        if argv.is_empty() {
            return Err(GtpError::CommandLine(line.to_string()));
        }
        Ok(EngineConfig {
            argv,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            quit_grace: Duration::from_secs(2),
            command_timeout: DEFAULT_COMMAND_TIMEOUT,
            stderr: StderrMode::Null,
        })
    }

    /// The command line, quoted so that [`EngineConfig::from_command_line`] gives it back.
    pub fn command_line(&self) -> String {
        shlex::try_join(self.argv.iter().map(String::as_str))
            .unwrap_or_else(|_| self.argv.join(" "))
    }
}

/// An error talking to an engine. [`GtpError::needs_restart`] tells which ones leave the engine
/// unusable.
#[derive(Debug, thiserror::Error)]
pub enum GtpError {
    /// The engine command line is empty or has unbalanced quotes.
    #[error("cannot split the engine command line {0:?}")]
    CommandLine(String),
    /// The engine could not be started.
    #[error("cannot start {command}: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The engine answered `?`: it is alive and refused the command.
    #[error("{command:?} failed: {message}")]
    Failure {
        /// The command sent.
        command: String,
        /// The engine's message.
        message: String,
    },
    /// No complete answer within the timeout: the engine is hung (or too slow).
    #[error("{command:?}: no answer within {after:?}")]
    Timeout {
        /// The command sent.
        command: String,
        /// The timeout.
        after: Duration,
    },
    /// The engine exited (or closed its output) before answering.
    #[error("{command:?}: the engine died ({status})")]
    Died {
        /// The command sent.
        command: String,
        /// The exit status, as text, when known.
        status: String,
    },
    /// The engine wrote something that is not a GTP response.
    #[error("{command:?}: not a GTP response: {reply:?}")]
    Protocol {
        /// The command sent.
        command: String,
        /// The offending text (at most 200 bytes).
        reply: String,
    },
    /// The wait for an answer was cut short by the interrupt flag ([`Engine::set_interrupt`]).
    #[error("{command:?}: interrupted")]
    Interrupted {
        /// The command sent.
        command: String,
    },
    /// A command that GTP cannot carry (a control character or a line break in it).
    #[error("{0:?} is not a single GTP command line")]
    BadCommand(String),
}

impl GtpError {
    /// Whether the engine must be restarted before it can be used again: after a timeout, a
    /// death, a protocol error or a spawn failure its state is unknown or gone.
    pub fn needs_restart(&self) -> bool {
        !matches!(self, GtpError::Failure { .. } | GtpError::BadCommand(_))
    }
}

/// A line from the reader thread, or why there is none.
pub(crate) enum Line {
    Text(String),
    TooLong,
}

/// One running GTP engine. Commands are sent with increasing ids and the answer's id is checked;
/// answers are read by a thread so that every command can time out. The engine runs in its own
/// process group, and whenever it is stopped (dropped, restarted, timed out, after `quit`) the
/// whole group is killed and the process reaped: neither a wrapper script's children nor a zombie
/// are left behind. [`Engine::shutdown`] asks politely first.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    process: Process,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    next_id: u64,
    broken: bool,
    restarts: u32,
    interrupt: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Line::Text(t) => write!(f, "{t:?}"),
            Line::TooLong => f.write_str("<too long>"),
        }
    }
}

/// The process groups of the engines started and not yet reaped (a leader's pid is its group's
/// id), for [`kill_running_engines`].
static RUNNING: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

fn running() -> std::sync::MutexGuard<'static, BTreeSet<u32>> {
    // The set stays consistent even if a holder panicked: every operation is one insert/remove.
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Kills (SIGKILL) the process group of every engine this program has started and not yet
/// stopped: for a signal handler about to leave at once (a second Ctrl-C), where no engine gets a
/// `quit` and no destructor runs. Engines run in their own process group, so without this a
/// wrapper script's children would outlive the program.
pub fn kill_running_engines() {
    let running = running();
    for &pid in running.iter() {
        signal_group(pid);
    }
}

/// SIGKILL to the process group `pid`. Only called for a group whose leader has not been reaped:
/// an unreaped leader keeps its pid, the group's id, from being reused, so the signal cannot reach
/// an unrelated group.
#[cfg(unix)]
fn signal_group(pid: u32) {
    use rustix::process::{kill_process_group, Pid, Signal};
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        // An empty group (ESRCH) is what is wanted, not an error.
        let _ = kill_process_group(pid, Signal::KILL);
    }
}

#[cfg(not(unix))]
fn signal_group(_pid: u32) {}

/// An engine process and everything it started: the leader of its own process group (a wrapper
/// script's children are members too). Ending it kills the whole group, then reaps the leader;
/// dropping it ends it, so no path (a timeout, a restart, a failed start, a panic) can leave
/// members of the group behind or the leader as a zombie.
#[derive(Debug)]
pub(crate) struct Process {
    child: Child,
    status: Option<ExitStatus>,
}

impl Process {
    fn new(child: Child) -> Process {
        running().insert(child.id());
        Process {
            child,
            status: None,
        }
    }

    /// Whether the leader has exited, without reaping it (the group's id must stay reserved until
    /// the group has been signalled).
    fn exited(&mut self) -> bool {
        if self.status.is_some() {
            return true;
        }
        #[cfg(unix)]
        {
            use rustix::io::Errno;
            use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
            let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
            match waitid(WaitId::Pid(Pid::from_child(&self.child)), options) {
                Ok(found) => found.is_some(),
                Err(e) => e == Errno::CHILD,
            }
        }
        #[cfg(not(unix))]
        {
            if let Ok(Some(s)) = self.child.try_wait() {
                self.status = Some(s);
            }
            self.status.is_some()
        }
    }

    /// Kills the group (members left behind by a leader that exited on its own included: they
    /// are strays once the engine is gone, and GTP gives no way to tell when they would finish),
    /// then reaps the leader. Returns the leader's exit status.
    pub(crate) fn end(&mut self) -> Option<ExitStatus> {
        if self.status.is_some() {
            return self.status;
        }
        let pid = self.child.id();
        {
            // Out of the set before reaping, so kill_running_engines never signals a reaped id.
            let mut running = running();
            running.remove(&pid);
            signal_group(pid);
        }
        // The leader too, in case it left its group.
        let _ = self.child.kill();
        self.status = self.child.wait().ok();
        self.status
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.end();
    }
}

/// A deadline `after` from now, with `after` cut to [`MAX_WAIT`].
fn deadline(after: Duration) -> Instant {
    Instant::now() + after.min(MAX_WAIT)
}

pub(crate) fn spawn(
    config: &EngineConfig,
) -> Result<(Process, ChildStdin, Receiver<Line>), GtpError> {
    let mut cmd = Command::new(&config.argv[0]);
    cmd.args(&config.argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(match config.stderr {
            StderrMode::Null => Stdio::null(),
            StderrMode::Inherit => Stdio::inherit(),
        });
    // Its own process group: Ctrl-C in a terminal goes to kifu, which then stops the engine
    // cleanly, instead of killing every engine mid-answer.
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|source| GtpError::Spawn {
        command: config.command_line(),
        source,
    })?;
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    // From here on, any early return ends the process group.
    let process = Process::new(child);
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("gtp-reader".into())
        .spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match (&mut r).take(MAX_LINE as u64).read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let line = if buf.last() != Some(&b'\n') && buf.len() >= MAX_LINE {
                    Line::TooLong
                } else {
                    while matches!(buf.last(), Some(b'\n' | b'\r')) {
                        buf.pop();
                    }
                    Line::Text(String::from_utf8_lossy(&buf).into_owned())
                };
                let stop = matches!(line, Line::TooLong);
                if tx.send(line).is_err() || stop {
                    break;
                }
            }
        })
        .map_err(|source| GtpError::Spawn {
            command: config.command_line(),
            source,
        })?;
    Ok((process, stdin, rx))
}

/// The first 200 bytes of an answer, for messages.
pub(crate) fn clip(s: &str) -> String {
    let mut end = s.len().min(200);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

impl Engine {
    /// Starts the engine and checks that it speaks GTP (`protocol_version` must get an answer,
    /// `=` or `?`, within the startup timeout).
    pub fn start(config: EngineConfig) -> Result<Engine, GtpError> {
        if config.argv.is_empty() {
            return Err(GtpError::CommandLine(String::new()));
        }
        let (process, stdin, lines) = spawn(&config)?;
        let mut engine = Engine {
            config,
            process,
            stdin: Some(stdin),
            lines,
            next_id: 1,
            broken: false,
            restarts: 0,
            interrupt: None,
        };
        engine.handshake()?;
        Ok(engine)
    }

    fn handshake(&mut self) -> Result<(), GtpError> {
        match self.command_with_timeout("protocol_version", self.config.startup_timeout) {
            Ok(_) | Err(GtpError::Failure { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The configuration the engine was started with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// A flag that, once set, cuts short any wait for an answer (checked every 20 ms) with
    /// [`GtpError::Interrupted`], so a Ctrl-C does not wait for a slow engine's timeout.
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    /// How many times [`Engine::restart`] has run.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// The process id of the running engine.
    pub fn pid(&self) -> u32 {
        self.process.child.id()
    }

    /// Whether an earlier error left the engine unusable (see [`GtpError::needs_restart`]).
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// Kills the process and its group (if still running), waits for it, and starts a fresh one.
    pub fn restart(&mut self) -> Result<(), GtpError> {
        self.stdin = None;
        self.process.end();
        self.restarts += 1;
        self.broken = true;
        let (process, stdin, lines) = spawn(&self.config)?;
        self.process = process;
        self.stdin = Some(stdin);
        self.lines = lines;
        self.broken = false;
        self.handshake().inspect_err(|_| self.broken = true)
    }

    /// Sends one command with the configured timeout ([`EngineConfig::command_timeout`]).
    pub fn command(&mut self, command: &str) -> Result<String, GtpError> {
        self.command_with_timeout(command, self.config.command_timeout)
    }

    /// Sends one command and returns the answer's text (without `=` and id; lines joined with
    /// `\n`), waiting at most `timeout`.
    pub fn command_with_timeout(
        &mut self,
        command: &str,
        timeout: Duration,
    ) -> Result<String, GtpError> {
        if command.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
            return Err(GtpError::BadCommand(command.to_string()));
        }
        let result = self.exchange(command, timeout);
        if let Err(e) = &result {
            if e.needs_restart() {
                self.broken = true;
            }
        }
        result
    }

    fn died(&mut self, command: &str) -> GtpError {
        // The output closed; give the process a moment to finish exiting so the status is known.
        let deadline = deadline(Duration::from_millis(200));
        let status = loop {
            if self.process.exited() {
                // The engine is gone: so is its group.
                break self
                    .process
                    .end()
                    .map_or_else(|| "exited".to_string(), describe);
            }
            if Instant::now() >= deadline {
                break "output closed".to_string();
            }
            thread::sleep(Duration::from_millis(5));
        };
        GtpError::Died {
            command: command.to_string(),
            status,
        }
    }

    fn exchange(&mut self, command: &str, timeout: Duration) -> Result<String, GtpError> {
        let deadline = deadline(timeout);
        let id = self.send(&[command])?;
        self.receive(command, id, deadline, timeout)
    }

    /// Sends commands in one write; the id of the first (the others follow).
    fn send(&mut self, commands: &[&str]) -> Result<u64, GtpError> {
        let first = self.next_id;
        let mut text = String::new();
        for c in commands {
            text.push_str(&format!("{} {c}\n", self.next_id));
            self.next_id += 1;
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.died(commands.first().copied().unwrap_or("")));
        };
        let sent = stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.flush());
        if sent.is_err() {
            return Err(self.died(commands.first().copied().unwrap_or("")));
        }
        Ok(first)
    }

    /// Sends `commands` all at once and reads their answers in order (GTP answers commands in
    /// the order it reads them): one round trip instead of one per command, which is most of
    /// a position's setup time. Every answer is read even after a refusal, so the engine stays
    /// in step; the first refusal is the error. `timeout` is for the whole batch.
    pub fn commands(&mut self, commands: &[String], timeout: Duration) -> Result<(), GtpError> {
        if commands.is_empty() {
            return Ok(());
        }
        for c in commands {
            if c.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
                return Err(GtpError::BadCommand(c.clone()));
            }
        }
        let deadline = deadline(timeout);
        let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
        let result = (|| {
            let first = self.send(&refs)?;
            let mut refused = None;
            for (k, c) in refs.iter().enumerate() {
                match self.receive(c, first + k as u64, deadline, timeout) {
                    Ok(_) => {}
                    Err(e @ GtpError::Failure { .. }) => {
                        refused.get_or_insert(e);
                    }
                    Err(e) => return Err(e),
                }
            }
            refused.map_or(Ok(()), Err)
        })();
        if let Err(e) = &result {
            if e.needs_restart() {
                self.broken = true;
            }
        }
        result
    }

    /// Reads the answer to command `id`.
    fn receive(
        &mut self,
        command: &str,
        id: u64,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<String, GtpError> {
        let mut lines: Vec<String> = Vec::new();
        let mut status: Option<(bool, u64)> = None; // (success, id) once the first line is seen
        loop {
            let mut wait = deadline.saturating_duration_since(Instant::now());
            if let Some(flag) = &self.interrupt {
                if flag.load(Ordering::Relaxed) {
                    return Err(GtpError::Interrupted {
                        command: command.to_string(),
                    });
                }
                wait = wait.min(Duration::from_millis(20));
            }
            let line = match self.lines.recv_timeout(wait) {
                Ok(Line::Text(t)) => t,
                Ok(Line::TooLong) => {
                    return Err(GtpError::Protocol {
                        command: command.to_string(),
                        reply: format!("a line longer than {MAX_LINE} bytes"),
                    })
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => continue,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(GtpError::Timeout {
                        command: command.to_string(),
                        after: timeout,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.died(command)),
            };
            match status {
                None => {
                    // Blank lines between responses are allowed by GTP.
                    if line.trim().is_empty() {
                        continue;
                    }
                    let (ok, rest) = match line.as_bytes()[0] {
                        b'=' => (true, &line[1..]),
                        b'?' => (false, &line[1..]),
                        _ => {
                            return Err(GtpError::Protocol {
                                command: command.to_string(),
                                reply: clip(&line),
                            })
                        }
                    };
                    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                    let got_id = if digits == 0 {
                        // Engines that drop ids are tolerated.
                        id
                    } else {
                        rest[..digits].parse().unwrap_or(u64::MAX)
                    };
                    if got_id != id {
                        return Err(GtpError::Protocol {
                            command: command.to_string(),
                            reply: clip(&line),
                        });
                    }
                    lines.push(rest[digits..].trim().to_string());
                    status = Some((ok, got_id));
                }
                Some((ok, _)) => {
                    if line.is_empty() {
                        let text = lines.join("\n").trim().to_string();
                        return if ok {
                            Ok(text)
                        } else {
                            Err(GtpError::Failure {
                                command: command.to_string(),
                                message: text,
                            })
                        };
                    }
                    if lines.len() >= MAX_RESPONSE_LINES {
                        return Err(GtpError::Protocol {
                            command: command.to_string(),
                            reply: format!("more than {MAX_RESPONSE_LINES} lines"),
                        });
                    }
                    lines.push(line);
                }
            }
        }
    }

    /// Asks the engine to `quit`, waits up to the grace period for it to exit, then kills its
    /// whole process group (whatever is left of it, even if the engine obeyed) and reaps it.
    /// Returns its exit status.
    pub fn shutdown(mut self) -> Option<ExitStatus> {
        if !self.broken {
            let grace = self.config.quit_grace;
            let _ = self.command_with_timeout("quit", grace);
        }
        // Closing stdin makes a well-behaved engine exit even if it ignored `quit`.
        self.stdin = None;
        let deadline = deadline(self.config.quit_grace);
        while !self.process.exited() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        self.process.end()
    }
}

fn describe(s: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match s.code() {
        Some(c) => format!("exit code {c}"),
        None => "exited".to_string(),
    }
}
