// The one Catch2 include for every test: v3 when installed, else v2.13 (Debian 12's package).
#pragma once

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define AGENTKIT_CATCH_MAJOR 3
#else
#include <catch2/catch.hpp>
#define AGENTKIT_CATCH_MAJOR 2
#endif
