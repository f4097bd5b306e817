// YAML spellings of the configuration enums (the only place they are written).
#include "core/config.hpp"

namespace evb {

const char* to_string(Layout v) {
  switch (v) {
    case Layout::rubu:
      return "rubu";
    case Layout::split:
      return "split";
  }
  return "?";
}

const char* to_string(EvmPlacement v) {
  switch (v) {
    case EvmPlacement::dedicated:
      return "dedicated";
    case EvmPlacement::with_rank0:
      return "with-rank0";
  }
  return "?";
}

const char* to_string(Scheduling v) {
  switch (v) {
    case Scheduling::barrel:
      return "barrel";
    case Scheduling::random:
      return "random";
    case Scheduling::topology:
      return "topology";
  }
  return "?";
}

const char* to_string(SizeDistribution v) {
  switch (v) {
    case SizeDistribution::fixed:
      return "fixed";
    case SizeDistribution::uniform:
      return "uniform";
    case SizeDistribution::lognormal:
      return "lognormal";
  }
  return "?";
}

const char* to_string(DataPath v) {
  switch (v) {
    case DataPath::automatic:
      return "auto";
    case DataPath::send:
      return "send";
    case DataPath::write:
      return "write";
  }
  return "?";
}

const char* to_string(PageSize v) {
  return v == PageSize::huge ? "huge" : "normal";
}

const char* to_string(LocalFragment v) {
  return v == LocalFragment::in_place ? "in_place" : "copy";
}

const char* to_string(VerifyPayload v) {
  switch (v) {
    case VerifyPayload::automatic:
      return "auto";
    case VerifyPayload::on:
      return "on";
    case VerifyPayload::off:
      return "off";
  }
  return "?";
}

const char* to_string(Bind v) {
  return v == Bind::none ? "none" : "core";
}

const char* to_string(OnFailure v) {
  switch (v) {
    case OnFailure::abort:
      return "abort";
    case OnFailure::exclude:
      return "exclude";
  }
  return "?";
}

const char* to_string(OnRuLoss v) {
  switch (v) {
    case OnRuLoss::stop:
      return "stop";
    case OnRuLoss::mask:
      return "mask";
  }
  return "?";
}

const char* to_string(FaultSpec::Kind v) {
  switch (v) {
    case FaultSpec::Kind::kill:
      return "kill";
    case FaultSpec::Kind::stall:
      return "stall";
    case FaultSpec::Kind::delay:
      return "delay";
    case FaultSpec::Kind::corrupt:
      return "corrupt";
    case FaultSpec::Kind::desync:
      return "desync";
  }
  return "?";
}

const char* to_string(PollMode v) {
  switch (v) {
    case PollMode::automatic:
      return "auto";
    case PollMode::busy:
      return "busy";
    case PollMode::yield:
      return "yield";
    case PollMode::block:
      return "block";
  }
  return "?";
}

double default_spread(SizeDistribution d, double current) {
  switch (d) {
    case SizeDistribution::uniform:
      return 0.25;
    case SizeDistribution::lognormal:
      return 0.3;
    case SizeDistribution::fixed:
      break;
  }
  return current;
}

}  // namespace evb
