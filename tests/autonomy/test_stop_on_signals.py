"""stop_on_signals: the handler never takes the lock of the event the main thread may be waiting on."""

from __future__ import annotations

import signal
import threading

from agi_core.scheduling.follow import stop_on_signals


def test_a_signal_inside_the_stop_events_wait_sets_it_without_a_deadlock():
    """A signal can land while the main thread holds ``stop``'s lock (the prologue of ``stop.wait``
    in the idle sleep); the handler then runs on that thread. Setting the event there deadlocked
    (CI: ``agi run --follow`` ignored SIGTERM for 60 s). Here the handler runs with the lock held."""
    stop = threading.Event()
    with stop_on_signals(stop):
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)

        def signal_inside_wait() -> None:
            with stop._cond:  # the fault: the event's lock is held when the handler runs
                handler(signal.SIGTERM, None)

        thread = threading.Thread(target=signal_inside_wait, daemon=True)
        thread.start()
        thread.join(timeout=10)
        assert not thread.is_alive(), "the handler blocked on the stop event's lock"
        assert stop.wait(timeout=10)


def test_the_old_handlers_come_back_and_no_signal_leaves_stop_unset():
    stop = threading.Event()
    before = signal.getsignal(signal.SIGINT)
    with stop_on_signals(stop):
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before
    assert not stop.is_set()


def test_signals_once_the_loop_is_over_wait_for_the_close(monkeypatch):
    """After the loop ended, ``agi run --follow`` seals and closes (about 250 ms). A second SIGTERM then
    killed it (exit 143) before the seal: the ticks of the run stayed unsealed. Once ``closing`` is set,
    signals are ignored until the block is left (the handler is called directly, and re-raising the
    signal is caught: a real one would end this process)."""

    def terminate(signum: int) -> None:
        raise AssertionError(f"signal {signum} would have ended the process before the seal")

    monkeypatch.setattr(signal, "raise_signal", terminate)
    stop = threading.Event()
    with stop_on_signals(stop) as closing:
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        handler(signal.SIGTERM, None)  # the first: stop after the tick
        assert stop.wait(timeout=10)
        closing.set()  # the loop is over: sealing
        before = signal.getsignal(signal.SIGTERM)
        handler(signal.SIGTERM, None)  # a second one: ignored, the handlers stay
        handler(signal.SIGINT, None)
        assert signal.getsignal(signal.SIGTERM) is before
