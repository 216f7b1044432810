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
