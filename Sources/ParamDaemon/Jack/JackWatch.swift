/// The JACK connection over time, as the control loop watches it: when to try the server
/// again and since when it is gone (JackRetry.swift), and the JACK-to-system clock offset's
/// jitter while it is there (ClockWatch.swift). Control thread.
struct JackWatch {
    var retry = JackRetry()
    var clock = ClockWatch()
}
