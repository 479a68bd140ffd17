import Outbox
