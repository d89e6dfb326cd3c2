package coordinator

// HighBatches exports the pacing bound for the tests of package
// coordinator_test.
const HighBatches = highBatches
