/** The health indicator against Spring Boot 4's actuator API. <b>Internal to fenced.</b> */
@NullMarked
package dev.fenced.internal.spring.actuate.boot4;

import org.jspecify.annotations.NullMarked;
