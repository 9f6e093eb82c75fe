//! A command of the library running on a thread of its own, so that Python keeps its GIL
//! free while it runs: Python polls its progress ([`Job::status`]), waits for it with the GIL
//! released ([`Job::wait`]), cancels it (on Ctrl-C: [`Job::cancel`]) and takes its result.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use ricochet::ensemble::{Progress, Watch};

use crate::convert::exception;

/// What a finished command hands to Python.
pub type Output = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// The run under way: its name, scenes and steps per scene, and the counter's value when it
/// began (the counter is the job's, shared by its runs).
#[derive(Clone, Default)]
struct Current {
    name: String,
    scenes: usize,
    steps: u64,
    base: u64,
}

/// What the command's thread and Python share: the command watches its runs through it.
#[derive(Default)]
pub struct Shared {
    progress: Progress,
    current: Mutex<Current>,
    outcome: Mutex<Option<ricochet::Result<Output>>>,
    finished: Condvar,
}

impl Watch for Shared {
    fn watch<T>(&self, name: &str, (scenes, steps): (usize, u64), work: impl FnOnce(&Progress) -> T) -> T {
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = Current {
            name: name.to_string(),
            scenes,
            steps,
            base: self.progress.scene_steps(),
        };
        work(&self.progress)
    }
}

/// A command running on a thread of its own.
#[pyclass(module = "ricochet._ricochet", frozen)]
pub struct Job {
    shared: Arc<Shared>,
}

impl Job {
    /// Starts `command` on a new thread; it shows its runs' progress through the [`Watch`] it
    /// is given.
    pub fn start(command: impl FnOnce(&Shared) -> ricochet::Result<Output> + Send + 'static) -> PyResult<Self> {
        let shared = Arc::new(Shared::default());
        let worker = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("ricochet".into())
            .spawn(move || {
                // A panic is an error of the run, not a hang of the waiting Python.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| command(&worker)))
                    .unwrap_or_else(|panic| {
                        let why = panic
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        Err(ricochet::Error::Gpu(format!("internal error (a panic): {why}")))
                    });
                *worker.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
                worker.finished.notify_all();
            })
            .map_err(|e| PyRuntimeError::new_err(format!("could not start a thread: {e}")))?;
        Ok(Self { shared })
    }
}

#[pymethods]
impl Job {
    /// Waits up to `timeout` seconds (forever when `None`) with the GIL released; returns
    /// whether the command has finished.
    #[pyo3(signature = (timeout=None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> bool {
        let shared = &self.shared;
        py.detach(|| {
            let outcome = shared.outcome.lock().unwrap_or_else(PoisonError::into_inner);
            let unfinished = |o: &mut Option<_>| o.is_none();
            let outcome = match timeout {
                None => (shared.finished.wait_while(outcome, unfinished)).unwrap_or_else(PoisonError::into_inner),
                Some(t) => {
                    let timeout = Duration::from_secs_f64(t.max(0.0));
                    let waited = shared.finished.wait_timeout_while(outcome, timeout, unfinished);
                    waited.unwrap_or_else(PoisonError::into_inner).0
                }
            };
            outcome.is_some()
        })
    }

    /// `(name, scene_steps, scenes, steps)` of the run under way: its name, the
    /// scene-steps it has done, its scenes and steps per scene.
    fn status(&self) -> (String, u64, usize, u64) {
        let current = self
            .shared
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let done = self.shared.progress.scene_steps().saturating_sub(current.base);
        (current.name, done, current.scenes, current.steps)
    }

    /// Asks the command to stop; it does at its engine's next report (`wait` then returns).
    fn cancel(&self) {
        self.shared.progress.cancel();
    }

    /// The finished command's result (once: it is handed over), or its error as an exception.
    fn result(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let outcome = self
            .shared
            .outcome
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match outcome {
            None => Err(PyRuntimeError::new_err(
                "the job has not finished, or its result was taken",
            )),
            Some(Ok(output)) => output(py),
            Some(Err(e)) => Err(exception(e)),
        }
    }
}
