//! The LSP dialect's own rules of a session (LSP 3.17, "Lifecycle
//! Messages", "Base Protocol"), as the reference language server keeps
//! them: the error codes LSP adds to JSON-RPC's, and the lifecycle a
//! server goes through (`initialize`, `shutdown`, `exit`). Sans-IO.

use serde_json::Value;

/// `-32002` ServerNotInitialized: "If the server receives a request or
/// notification before the initialize request it should act as follows:
/// For a request the response should be an error with code: -32002."
pub const SERVER_NOT_INITIALIZED: i64 = -32002;
/// `-32800` RequestCancelled: the error a cancelled request may be
/// answered with.
pub const REQUEST_CANCELLED: i64 = -32800;
/// `-32600` InvalidRequest: what a request after `shutdown`, or a second
/// `initialize`, gets.
pub const INVALID_REQUEST: i64 = -32600;
/// `-32601` MethodNotFound: what a `$/` request the server does not know
/// gets ("it must error the request with error code MethodNotFound").
pub const METHOD_NOT_FOUND: i64 = -32601;

/// Where a language server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lifecycle {
    /// `initialize` not yet received.
    #[default]
    Starting,
    /// Initialized: serving requests.
    Running,
    /// `shutdown` answered: requests now get InvalidRequest.
    ShutDown,
    /// `exit` received: the process ends with this status ("The server
    /// should exit with success code 0 if the shutdown request has been
    /// received before; otherwise with error code 1").
    Exited(i32),
}

/// An error: its code and message.
pub type Refusal = (i64, &'static str);

impl Lifecycle {
    /// The answer to a request for `method` (a result, or an error), and
    /// the state it leaves. The reference has no method of its own but
    /// `initialize` and `shutdown`.
    pub fn request(&mut self, method: &str) -> Result<Value, Refusal> {
        match (*self, method) {
            (Lifecycle::Starting, "initialize") => {
                *self = Lifecycle::Running;
                Ok(serde_json::json!({
                    "capabilities": {},
                    "serverInfo": {"name": "rpcspec-reference", "version": env!("CARGO_PKG_VERSION")},
                }))
            }
            (Lifecycle::Starting, _) => Err((SERVER_NOT_INITIALIZED, "Server not initialized")),
            (Lifecycle::Running, "initialize") => Err((
                INVALID_REQUEST,
                "Invalid request: initialize may only be sent once",
            )),
            (Lifecycle::Running, "shutdown") => {
                *self = Lifecycle::ShutDown;
                Ok(Value::Null)
            }
            (Lifecycle::Running, _) => Err((METHOD_NOT_FOUND, "Method not found")),
            (Lifecycle::ShutDown | Lifecycle::Exited(_), _) => {
                Err((INVALID_REQUEST, "Invalid request: the server is shut down"))
            }
        }
    }

    /// Takes a notification for `method`: `exit` ends the server; every
    /// other is dropped before `initialize`, and needs nothing here after
    /// it (`$/cancelRequest` included: the reference answers each request
    /// as it reads it, so none is pending to cancel).
    pub fn notification(&mut self, method: &str) {
        if method == "exit" {
            let status = i32::from(*self != Lifecycle::ShutDown);
            *self = Lifecycle::Exited(status);
        }
    }

    /// The exit status, once `exit` was received.
    pub fn exit(self) -> Option<i32> {
        match self {
            Lifecycle::Exited(status) => Some(status),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_goes_through_initialize_shutdown_and_exit() {
        let mut life = Lifecycle::default();
        assert_eq!(life.request("textDocument/hover").unwrap_err().0, -32002);
        life.notification("initialized");
        assert_eq!(life, Lifecycle::Starting, "dropped before initialize");
        assert!(life.request("initialize").unwrap()["capabilities"].is_object());
        assert_eq!(life.request("initialize").unwrap_err().0, -32600);
        assert_eq!(life.request("$/rpcspec").unwrap_err().0, -32601);
        assert_eq!(life.request("shutdown"), Ok(Value::Null));
        assert_eq!(life.request("shutdown").unwrap_err().0, -32600);
        assert_eq!(life.exit(), None);
        life.notification("exit");
        assert_eq!(life.exit(), Some(0));
    }

    #[test]
    fn exit_without_shutdown_is_status_1() {
        for mut life in [Lifecycle::Starting, Lifecycle::Running] {
            life.notification("exit");
            assert_eq!(life.exit(), Some(1));
        }
    }
}
