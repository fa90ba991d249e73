"""Question runs in the store: every agent event and every scored answer, as they happen."""

from __future__ import annotations

from arena.store import Store


class QuestionRunLog:
    """Records one `arena questions run` as a `questions` stream; pass its methods as the
    runner's `on_event` and `on_finished` callbacks."""

    def __init__(self, store: Store, *, set_name: str, model: str, policy: str) -> None:
        self.store = store
        self.run_id = store.create_question_run(set_name=set_name, model=model, policy=policy)
        self.scored = 0
        self.correct = 0
        self.cost_usd = 0.0

    def on_event(self, question, event) -> None:
        if not event.transient:  # deltas are repeated whole in the reply event
            self.store.append(
                self.run_id, "agent_event", {"task_id": question.task_id, **event.to_dict()}
            )

    def on_finished(self, done) -> None:
        row = done.prediction_row()
        self.cost_usd += done.cost_usd
        if done.score is not None:
            self.scored += 1
            self.correct += bool(done.score.correct)
        self.store.append(self.run_id, "question_finished", row)

    def close(self, *, stopped: bool = False) -> None:
        if stopped:
            self.store.set_status(self.run_id, "stopped")
            return
        accuracy = self.correct / self.scored if self.scored else None
        self.store.finish_question_run(self.run_id, accuracy=accuracy, cost_usd=self.cost_usd)
