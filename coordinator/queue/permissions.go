package queue

// WorkerPublish and WorkerSubscribe are all a worker's NATS user needs
// (docs/gpu-worker.md spells them in nats-server's configuration): bind and
// read the job consumers, ack jobs, publish results, inputs and dead
// letters, and refresh its registry entry. A worker cannot create or change
// streams, read results or other campaigns' inputs, or touch consumers
// other than the jobs'. TestWorkerLeastPrivilege runs a campaign with a
// worker holding exactly these.
var (
	WorkerPublish = []string{
		"$JS.API.INFO",
		"$JS.API.STREAM.INFO." + streamJobs,
		"$JS.API.STREAM.INFO.KV_" + kvWorkers,
		"$JS.API.CONSUMER.CREATE." + streamJobs + ".>",
		"$JS.API.CONSUMER.DURABLE.CREATE." + streamJobs + ".>",
		"$JS.API.CONSUMER.INFO." + streamJobs + ".>",
		"$JS.API.CONSUMER.MSG.NEXT." + streamJobs + ".>",
		"$JS.ACK." + streamJobs + ".>",
		"$KV." + kvWorkers + ".>",
		SubjectResults + ".>", SubjectInputs + ".>", SubjectDead + ".>",
	}
	WorkerSubscribe = []string{"_INBOX.>"}
)
