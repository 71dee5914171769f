//! [`kill_running_engines`] on its own (it kills every engine of the process, so no other test may
//! share the test binary).

use kifu_gtp::{kill_running_engines, Engine, EngineConfig, GtpError};
use std::time::Duration;

#[test]
fn kill_running_engines_kills_every_group() {
    let exe = std::env::current_exe().unwrap();
    let fake = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join("fake_engine");
    let mut config = EngineConfig::from_command_line(&format!("'{}'", fake.display())).unwrap();
    config.command_timeout = Duration::from_secs(10);
    let mut engines: Vec<Engine> = (0..2)
        .map(|_| Engine::start(config.clone()).unwrap())
        .collect();
    kill_running_engines();
    for e in &mut engines {
        let err = e.command("name").unwrap_err();
        assert!(
            matches!(&err, GtpError::Died { status, .. } if status == "killed by signal 9"),
            "{err}"
        );
    }
    // The engines were reaped when their death was found; dropping them signals nothing more.
    drop(engines);
    // An engine started afterwards is not affected by the earlier call.
    let mut e = Engine::start(config).unwrap();
    assert_eq!(e.command("name").unwrap(), "kifu fake engine");
    assert!(e.shutdown().unwrap().success());
}
